import React from 'react';

import type {ConfirmationDetail} from '../../api';
import {modal} from '../styles';

// Who the write notifies or affects, under the server's heading for them.
export function Notes({detail}: {detail: ConfirmationDetail}) {
    if (detail.notes.length === 0) {
        return null;
    }
    return (
        <section style={modal.section}>
            <h3 style={modal.sectionHeading}>{detail.notes_heading || 'Who is notified'}</h3>
            <ul style={modal.notes}>
                {detail.notes.map((note) => <li key={note}>{note}</li>)}
            </ul>
        </section>
    );
}
