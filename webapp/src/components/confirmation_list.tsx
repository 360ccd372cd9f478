import React, {useEffect, useSyncExternalStore} from 'react';

import type {ConfirmationStore} from '../confirmation_store';

import {buttonStyle, errorStyle, mutedStyle, STATE_LABELS, theme} from './styles';

const containerStyle: React.CSSProperties = {padding: '12px 16px', color: theme.text, fontSize: 14};
const toolbarStyle: React.CSSProperties = {display: 'flex', alignItems: 'center', justifyContent: 'space-between', marginBottom: 8};
const listStyle: React.CSSProperties = {margin: 0, padding: 0, listStyle: 'none'};
const itemStyle: React.CSSProperties = {display: 'flex', alignItems: 'center', gap: 12, padding: '10px 0', borderTop: `1px solid ${theme.border}`};
const smallButtonStyle: React.CSSProperties = {...buttonStyle, padding: '4px 12px', fontSize: 12};

// The right-hand sidebar: the person's confirmations, pending first, then the
// recently answered ones, as the server orders them.
export function ConfirmationList({store}: {store: ConfirmationStore}) {
    const {list} = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
    useEffect(() => store.watchList(), [store]);

    return (
        <div style={containerStyle}>
            <div style={toolbarStyle}>
                <span style={mutedStyle}>{list.loading ? 'Loading…' : `${list.items.length} confirmation(s)`}</span>
                <button
                    type='button'
                    style={smallButtonStyle}
                    disabled={list.loading}
                    onClick={() => store.refreshList()}
                >
                    {'Refresh'}
                </button>
            </div>
            {list.error && <p role='alert' style={errorStyle}>{list.error}</p>}
            {!list.loading && !list.error && list.items.length === 0 && (
                <p style={mutedStyle}>{'Nothing is waiting for your confirmation.'}</p>
            )}
            <ul style={listStyle}>
                {list.items.map((item) => (
                    <li
                        key={item.id}
                        style={itemStyle}
                    >
                        <div style={{flex: 1, minWidth: 0}}>
                            <div style={{wordBreak: 'break-word'}}>{item.title}</div>
                            <div style={item.state === 'pending' ? {fontWeight: 600, fontSize: 12} : mutedStyle}>
                                {STATE_LABELS[item.state] ?? item.state}
                            </div>
                        </div>
                        <button
                            type='button'
                            style={smallButtonStyle}
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
