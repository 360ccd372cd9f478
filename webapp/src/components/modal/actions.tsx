import React from 'react';

import {sitePath, type Answer, type ConfirmationDetail} from '../../api';
import type {ModalState} from '../../confirmation_store';
import {modal, shared} from '../styles';

// The dialog's foot: a link to the same confirmation as a page, then Decline
// and Accept while the write waits, or Close once it is answered.
export function Actions({detail, busy, pending, onAnswer, onClose}: {
    detail: ConfirmationDetail | null;
    busy: ModalState['busy'];
    pending: boolean;
    onAnswer: (answer: Answer) => void;
    onClose: () => void;
}) {
    return (
        <div style={modal.footer}>
            {detail?.page_url && (
                <a
                    href={sitePath(detail.page_url)}
                    target='_blank'
                    rel='noopener noreferrer'
                    style={modal.pageLink}
                >
                    {'Open in a page'}
                </a>
            )}
            {pending ? (
                <>
                    <button
                        type='button'
                        style={shared.button}
                        disabled={busy !== null}
                        onClick={() => onAnswer('decline')}
                    >
                        {busy === 'decline' ? 'Declining…' : 'Decline'}
                    </button>
                    <button
                        type='button'
                        style={shared.primaryButton}
                        disabled={busy !== null}
                        onClick={() => onAnswer('accept')}
                    >
                        {busy === 'accept' ? detail?.working_label : detail?.modal_accept_label}
                    </button>
                </>
            ) : (
                <button
                    type='button'
                    style={modal.closeButton}
                    onClick={onClose}
                >
                    {'Close'}
                </button>
            )}
        </div>
    );
}

