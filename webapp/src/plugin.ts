import React from 'react';

import {CONNECT_TITLE} from './components/connect_dialog';
import {CONNECT_ICON_URL, ConnectIcon, createConnectRoot, createModalRoot, createSidebar, HeaderIcon} from './components/root';
import {ConfirmationStore} from './confirmation_store';
import {ConnectStore} from './connect_store';
import {CONFIRMATION_ANSWERED_EVENT, PENDING_CONFIRMATION_EVENT} from './manifest';
import type {MattermostPlugin, PluginRegistry, Store} from './mattermost';

export const SIDEBAR_TITLE = 'AI confirmations';

export class Plugin implements MattermostPlugin {
    readonly confirmations = new ConfirmationStore();
    readonly connect = new ConnectStore();

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

        // The Connect dialog: from the channel header, the app bar, and /mcp.
        registry.registerRootComponent(createConnectRoot(this.connect));
        const open = () => {
            this.connect.open();
        };
        registry.registerChannelHeaderButtonAction(React.createElement(ConnectIcon), open, CONNECT_TITLE, 'Connect an AI client to Mattermost');
        registry.registerAppBarComponent?.(CONNECT_ICON_URL, open, CONNECT_TITLE);
        registry.registerSlashCommandWillBePostedHook?.((message, args) => {
            if (opensDialog(message)) {
                open();
                return {};
            }
            return {message, args};
        });
    }

    // Mattermost removes the registered components and handlers itself.
    uninitialize(): void {
        this.confirmations.reset();
    }
}

// /mcp alone (or /mcp connect) opens the dialog; its other subcommands, and
// /mcp in the mobile app, go to the server, which answers with the setup.
export function opensDialog(message: string): boolean {
    const words = message.trim().split(/\s+/);
    return words[0] === '/mcp' && (words.length === 1 || (words.length === 2 && ['connect', 'setup'].includes(words[1].toLowerCase())));
}
