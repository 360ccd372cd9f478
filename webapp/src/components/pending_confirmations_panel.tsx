import React, {useSyncExternalStore} from 'react';

import {confirmationUrl} from '../manifest';
import type {PendingConfirmationStore} from '../pending_confirmations';

const panelStyle: React.CSSProperties = {
    position: 'fixed',
    right: 24,
    bottom: 24,
    zIndex: 1000,
    width: 360,
    maxHeight: '60vh',
    overflowY: 'auto',
    padding: '16px 20px',
    background: '#fff',
    color: '#3f4350',
    border: '1px solid rgba(63, 67, 80, 0.16)',
    borderRadius: 8,
    boxShadow: '0 8px 24px rgba(0, 0, 0, 0.12)',
    fontSize: 14,
};

const headingStyle: React.CSSProperties = {margin: '0 0 12px', fontSize: 16, fontWeight: 600};
const listStyle: React.CSSProperties = {margin: 0, padding: 0, listStyle: 'none'};
const itemStyle: React.CSSProperties = {padding: '8px 0', borderTop: '1px solid rgba(63, 67, 80, 0.08)'};
const titleStyle: React.CSSProperties = {display: 'block', marginBottom: 4};
const linkStyle: React.CSSProperties = {color: '#1c58d9', fontWeight: 600};

export function PendingConfirmationsPanel({store}: {store: PendingConfirmationStore}) {
    const confirmations = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
    if (confirmations.length === 0) {
        return null;
    }
    return (
        <div role='dialog' aria-labelledby='mcp-server-pending-heading' style={panelStyle}>
            <h2 id='mcp-server-pending-heading' style={headingStyle}>
                {'An AI client is waiting for your confirmation'}
            </h2>
            <ul style={listStyle}>
                {confirmations.map((c) => (
                    <li key={c.id} style={itemStyle}>
                        <span style={titleStyle}>{c.title}</span>
                        <a href={confirmationUrl(c.id)} target='_blank' rel='noopener noreferrer' style={linkStyle}>
                            {'Open in Mattermost'}
                        </a>
                    </li>
                ))}
            </ul>
        </div>
    );
}

// Mattermost renders root components without props, so bind the plugin's store.
export function createRootComponent(store: PendingConfirmationStore): React.ComponentType {
    const Root = () => <PendingConfirmationsPanel store={store}/>;
    Root.displayName = 'McpServerRoot';
    return Root;
}
