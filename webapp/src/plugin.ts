import {createRootComponent} from './components/pending_confirmations_panel';
import {PENDING_CONFIRMATION_EVENT} from './manifest';
import type {MattermostPlugin, PluginRegistry, Store} from './mattermost';
import {PendingConfirmationStore} from './pending_confirmations';

export class Plugin implements MattermostPlugin {
    readonly pending = new PendingConfirmationStore();

    initialize(registry: PluginRegistry, _store: Store): void {
        registry.registerWebSocketEventHandler(PENDING_CONFIRMATION_EVENT, this.pending.handleEvent);
        registry.registerRootComponent(createRootComponent(this.pending));
    }

    // Mattermost removes the registered components and handlers itself.
    uninitialize(): void {
        this.pending.clear();
    }
}
