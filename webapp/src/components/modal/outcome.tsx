import React from 'react';

import {STATE_WORDS, type ConfirmationDetail} from '../../api';
import type {ConfirmationStore} from '../../confirmation_store';
import {modal, shared} from '../styles';

// What became of an answered write, in the server's words (outcome_text, and
// outcome_reason for a failure). A detail without them gets the state's own
// word, never a sentence of the modal's that could contradict the server.
export function Outcome({detail, store}: {detail: ConfirmationDetail; store: ConfirmationStore}) {
    const text = detail.outcome_text || `${STATE_WORDS[detail.state] ?? detail.state}.`;
    switch (detail.state) {
    case 'posted':
        return (
            <p
                role='status'
                style={modal.section}
            >
                {`${text} `}
                {detail.permalink && (
                    <a
                        href={detail.permalink}
                        style={shared.link}
                        onClick={(e) => followInApp(e, detail.permalink, store)}
                    >
                        {'View the post'}
                    </a>
                )}
            </p>
        );
    case 'failed':
        return (
            <p
                role='status'
                style={shared.error}
            >
                {detail.outcome_reason ? `${text} ${detail.outcome_reason}` : text}
            </p>
        );
    case 'declined':
    case 'withdrawn':
    case 'executing':
        return (
            <p
                role='status'
                style={modal.section}
            >
                {text}
            </p>
        );
    default:
        return null;
    }
}

// A permalink on this site opens through the host's router, without reloading
// Mattermost; anything else is followed as a normal link.
function followInApp(e: React.MouseEvent, url: string, store: ConfirmationStore) {
    const history = window.WebappUtils?.browserHistory;
    const target = new URL(url, window.location.href);
    if (!history || target.origin !== window.location.origin || e.ctrlKey || e.metaKey || e.shiftKey) {
        return;
    }
    e.preventDefault();
    const base = (window.basename ?? '').replace(/\/$/, '');
    let path = target.pathname + target.search + target.hash;
    if (base && path.startsWith(base + '/')) {
        path = path.slice(base.length);
    }
    history.push(path);
    store.close();
}
