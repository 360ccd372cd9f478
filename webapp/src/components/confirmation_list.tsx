import React, {useEffect, useSyncExternalStore} from 'react';

import {shared, sidebar} from './styles';

import {STATE_WORDS} from '../api';
import type {ConfirmationStore} from '../confirmation_store';

// The right-hand sidebar: the person's confirmations, pending first, then the
// recently answered ones, as the server orders them.
export function ConfirmationList({store}: {store: ConfirmationStore}) {
    const {list} = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
    useEffect(() => store.watchList(), [store]);

    return (
        <div style={sidebar.container}>
            <div style={sidebar.toolbar}>
                <span style={shared.muted}>{list.loading ? 'Loading…' : `${list.items.length} confirmation(s)`}</span>
                <button
                    type='button'
                    style={sidebar.smallButton}
                    disabled={list.loading}
                    onClick={() => store.refreshList()}
                >
                    {'Refresh'}
                </button>
            </div>
            {list.error && (
                <p
                    role='alert'
                    style={shared.error}
                >
                    {list.error}
                </p>
            )}
            {!list.loading && !list.error && list.items.length === 0 && (
                <p style={shared.muted}>{'Nothing is waiting for your confirmation.'}</p>
            )}
            <ul style={sidebar.list}>
                {list.items.map((item) => (
                    <li
                        key={item.id}
                        style={sidebar.item}
                    >
                        <div style={sidebar.itemBody}>
                            <div style={sidebar.itemTitle}>{item.title}</div>
                            <div style={item.state === 'pending' ? sidebar.pendingState : shared.muted}>
                                {STATE_WORDS[item.state] ?? item.state}
                            </div>
                        </div>
                        <button
                            type='button'
                            style={sidebar.smallButton}
                            aria-label={`Open ${item.title}`}
                            onClick={() => store.open(item.id, item.title)}
                        >
                            {'Open'}
                        </button>
                    </li>
                ))}
            </ul>
        </div>
    );
}
