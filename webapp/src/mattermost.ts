// The small part of Mattermost's webapp plugin API this plugin uses.
// Mattermost publishes no types package for it, so they are declared here.
import type React from 'react';

export interface WebSocketMessage<T = Record<string, unknown>> {
    event: string;
    data: T;
    broadcast?: Record<string, unknown>;
    seq?: number;
}

export interface PluginRegistry {
    registerRootComponent(component: React.ComponentType): string;
    registerWebSocketEventHandler(event: string, handler: (msg: WebSocketMessage) => void): void;
}

// The host's Redux store; not used yet.
export type Store = unknown;

export interface MattermostPlugin {
    initialize(registry: PluginRegistry, store: Store): void | Promise<void>;
    uninitialize?(): void;
}

declare global {
    interface Window {
        registerPlugin(id: string, plugin: MattermostPlugin): void;
    }
}
