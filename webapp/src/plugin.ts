import React from 'react';

import {createModalRoot, createSidebar, HeaderIcon} from './components/root';
import {ConfirmationStore} from './confirmation_store';
import {CONFIRMATION_ANSWERED_EVENT, PENDING_CONFIRMATION_EVENT} from './manifest';
import type {MattermostPlugin, PluginRegistry, Store} from './mattermost';

export const SIDEBAR_TITLE = 'AI confirmations';

export class Plugin implements MattermostPlugin {
    readonly confirmations = new ConfirmationStore();

    initialize(registry: PluginRegistry, store: Store): void {
        registry.registerWebSocketEventHandler(PENDING_CONFIRMATION_EVENT, this.confirmations.handlePendingEvent);
        registry.registerWebSocketEventHandler(CONFIRMATION_ANSWERED_EVENT, this.confirmations.handleAnsweredEvent);
        registry.registerRootComponent(createModalRoot(this.confirmations));

        const sidebar = registry.registerRightHandSidebarComponent(createSidebar(this.confirmations), SIDEBAR_TITLE);
        registry.registerChannelHeaderButtonAction(
            React.createElement(HeaderIcon),
            () => store.dispatch(sidebar.toggleRHSPlugin),
            SIDEBAR_TITLE,
            'Posts waiting for your confirmation',
        );
    }

    // Mattermost removes the registered components and handlers itself.
    uninitialize(): void {
        this.confirmations.reset();
    }
}
