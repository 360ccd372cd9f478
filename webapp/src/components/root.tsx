import React from 'react';

import {ConfirmationList} from './confirmation_list';
import {ConfirmationModal} from './confirmation_modal';
import {ConnectDialog} from './connect_dialog';

import type {ConfirmationStore} from '../confirmation_store';
import type {ConnectStore} from '../connect_store';

// Mattermost renders registered components without the props this plugin needs,
// so each is bound to the plugin's store here.
export function bindStore(
    Component: React.ComponentType<{store: ConfirmationStore}>,
    store: ConfirmationStore,
    displayName: string,
): React.ComponentType {
    const Bound = () => <Component store={store}/>;
    Bound.displayName = displayName;
    return Bound;
}

export const createModalRoot = (store: ConfirmationStore) => bindStore(ConfirmationModal, store, 'McpServerConfirmationModal');
export const createSidebar = (store: ConfirmationStore) => bindStore(ConfirmationList, store, 'McpServerConfirmationList');

// A shield with a check mark, sized like Mattermost's channel header icons.
export function HeaderIcon() {
    return (
        <svg
            width='18'
            height='18'
            viewBox='0 0 24 24'
            fill='currentColor'
            aria-hidden='true'
        >
            <path d='M12 1 3 5v6c0 5.55 3.84 10.74 9 12 5.16-1.26 9-6.45 9-12V5l-9-4Zm-2 16-4-4 1.41-1.41L10 14.17l6.59-6.59L18 9l-8 8Z'/>
        </svg>
    );
}

export function createConnectRoot(store: ConnectStore): React.ComponentType {
    const Bound = () => <ConnectDialog store={store}/>;
    Bound.displayName = 'McpServerConnectDialog';
    return Bound;
}

const PLUG_PATH = 'M16 7V3h-2v4h-4V3H8v4H7a1 1 0 0 0-1 1v4a6 6 0 0 0 5 5.91V22h2v-4.09A6 6 0 0 0 18 12V8a1 1 0 0 0-1-1h-1Z';

// A plug: connecting an AI client.
export function ConnectIcon() {
    return (
        <svg
            width='18'
            height='18'
            viewBox='0 0 24 24'
            fill='currentColor'
            aria-hidden='true'
        >
            <path d={PLUG_PATH}/>
        </svg>
    );
}

// The app bar takes an image URL: the same plug, as a data URL.
export const CONNECT_ICON_URL = `data:image/svg+xml,${encodeURIComponent(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="#1c58d9"><path d="${PLUG_PATH}"/></svg>`)}`;
