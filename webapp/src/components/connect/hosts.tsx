import React from 'react';

import type {Host} from '../../connect_api';
import {connect as styles, modal, shared} from '../styles';

// The chat apps (ChatGPT, Claude) add this server as a connector from their
// own cloud, signing in with OAuth: what stops them on this server, said
// once for the admin, then each one's steps.
export function Hosts({hosts}: {hosts: Host[]}) {
    if (hosts.length === 0) {
        return null;
    }
    const blocked = hosts.filter((h) => h.blocked?.length);
    const reasons = [...new Set(blocked.flatMap((h) => h.blocked ?? []))];
    return (
        <section
            style={modal.section}
            aria-label='Chat apps'
        >
            {reasons.length > 0 && (
                <div
                    role='note'
                    style={styles.blocked}
                    data-blocked={blocked.map((h) => h.id).join(' ')}
                >
                    <strong>{`${blocked.map((h) => h.name).join(' and ')} cannot connect to this server yet.`}</strong>
                    <ul style={modal.notes}>
                        {reasons.map((why) => <li key={why}>{`For your system admin: ${why}`}</li>)}
                    </ul>
                </div>
            )}
            {hosts.map((h, i) => (
                <div
                    key={h.id}
                    data-host={h.id}
                    style={{marginTop: i === 0 ? 0 : 16}}
                >
                    <h3 style={modal.sectionHeading}>{h.name}</h3>
                    <ol style={{...modal.notes, ...shared.muted}}>
                        {h.steps.map((step) => <li key={step}>{step}</li>)}
                    </ol>
                </div>
            ))}
        </section>
    );
}
