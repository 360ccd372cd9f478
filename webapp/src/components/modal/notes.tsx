import React from 'react';

import type {ConfirmationDetail} from '../../api';
import {modal} from '../styles';

// Who the write notifies or affects, under the server's heading for them
// (it sends one with every plan that has notes, so the modal keeps none).
export function Notes({detail}: {detail: ConfirmationDetail}) {
    if (detail.notes.length === 0) {
        return null;
    }
    return (
        <section style={modal.section}>
            {detail.notes_heading && <h3 style={modal.sectionHeading}>{detail.notes_heading}</h3>}
            <ul style={modal.notes}>
                {detail.notes.map((note) => <li key={note}>{note}</li>)}
            </ul>
        </section>
    );
}
