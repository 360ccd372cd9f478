import React from 'react';

import type {ConnectedClient} from '../../connect_api';
import type {ConnectState, ConnectStore} from '../../connect_store';
import {connect as styles, modal, shared} from '../styles';

function when(iso: string): string {
    const t = new Date(iso);
    return Number.isNaN(t.getTime()) ? iso : t.toLocaleString(undefined, {dateStyle: 'medium', timeStyle: 'short'});
}

// What Disconnect does to this client, said before the person confirms.
function consequence(c: ConnectedClient): string {
    switch (c.sign_in) {
    case 'oauth':
        return 'Its sessions end on every server and its OAuth access is withdrawn.';
    case 'personal_access_token':
        return c.token_made_here ? 'Its sessions end on every server and the token made here is revoked.' : 'Its sessions end on every server; the token it uses was not made here and stays valid.';
    default:
        return 'Its sessions end on every server and the Mattermost session it signed in with is ended.';
    }
}

// The person's connected clients, each with Disconnect, confirmed first.
export function Clients({state, store}: {state: ConnectState; store: ConnectStore}) {
    const clients = state.overview?.clients ?? [];
    return (
        <section style={modal.section}>
            <h3 style={modal.sectionHeading}>{'Your connected clients'}</h3>
            {clients.length === 0 && <p style={shared.muted}>{'No AI client is connected to your Mattermost.'}</p>}
            <ul
                style={styles.clientList}
                aria-label='Connected clients'
            >
                {clients.map((c) => (
                    <li
                        key={c.id}
                        style={styles.client}
                        data-client={c.id}
                    >
                        <div style={styles.clientBody}>
                            <strong>{c.name}</strong>
                            {c.version && <span style={shared.muted}>{` ${c.version}`}</span>}
                            {Boolean(c.other_names?.length) && <span style={shared.muted}>{` (also ${c.other_names?.join(', ')})`}</span>}
                            <div style={shared.muted}>
                                {`Last used ${when(c.last_used)} · ${c.sign_in_text}${c.sessions > 1 ? ` · ${c.sessions} sessions` : ''}`}
                            </div>
                        </div>
                        {state.confirming === c.id ? (
                            <div
                                style={styles.confirm}
                                role='group'
                                aria-label={`Disconnect ${c.name}?`}
                            >
                                <span style={{flex: '1 1 200px'}}>{`Disconnect ${c.name}? ${consequence(c)}`}</span>
                                <button
                                    type='button'
                                    style={shared.button}
                                    onClick={() => store.askDisconnect(null)}
                                >
                                    {'Cancel'}
                                </button>
                                <button
                                    type='button'
                                    style={shared.primaryButton}
                                    onClick={() => store.disconnect(c.id)}
                                >
                                    {'Yes, disconnect'}
                                </button>
                            </div>
                        ) : (
                            <button
                                type='button'
                                style={shared.button}
                                disabled={state.busy !== null}
                                onClick={() => store.askDisconnect(c.id)}
                            >
                                {state.busy === `disconnect:${c.id}` ? 'Disconnecting…' : 'Disconnect'}
                            </button>
                        )}
                    </li>
                ))}
            </ul>
            {Boolean(state.overview?.more_clients) && <p style={shared.muted}>{`And ${state.overview?.more_clients} more, not listed.`}</p>}
        </section>
    );
}
