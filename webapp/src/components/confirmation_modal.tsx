import React, {useRef, useSyncExternalStore} from 'react';

import {useDialogFocus} from './dialog_focus';
import {Actions} from './modal/actions';
import {Destination} from './modal/destination';
import {Files} from './modal/files';
import {Heading} from './modal/heading';
import {Message, Previous} from './modal/message';
import {Notes} from './modal/notes';
import {Outcome} from './modal/outcome';
import {modal as styles, shared} from './styles';

import type {HeadingSpan} from '../api';
import type {ConfirmationStore, ModalState} from '../confirmation_store';
import {PLUGIN_ID} from '../manifest';

export function ConfirmationModal({store}: {store: ConfirmationStore}) {
    const {modal} = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
    if (!modal) {
        return null;
    }

    // Keyed by id so focus moves to the dialog again when the next one opens.
    return (
        <Dialog
            key={modal.id}
            modal={modal}
            store={store}
        />
    );
}

// The dialog: its parts in order (heading, what and where, the message and
// the post it is about, who is notified, the files, the outcome, the answer
// buttons); this holds focus, Escape and Tab.
function Dialog({modal, store}: {modal: ModalState; store: ConfirmationStore}) {
    const ref = useDialogFocus<HTMLDivElement>(store.close);
    const {detail, busy, error} = modal;
    const titleId = `${PLUGIN_ID}-confirmation-${modal.id}`;

    // An answered record keeps no plan, so its heading is remembered from
    // when it was pending.
    const heading = useRef('');
    const headingLine = useRef<HeadingSpan[] | null>(null);
    if (detail?.heading) {
        heading.current = detail.heading;
    }
    if (detail?.heading_line?.length) {
        headingLine.current = detail.heading_line;
    }

    const pending = detail?.state === 'pending' && !error?.gone;

    return (
        <div style={styles.overlay}>
            <div
                ref={ref}
                role='dialog'
                aria-modal='true'
                aria-labelledby={titleId}
                tabIndex={-1}
                style={styles.dialog}
                onKeyDown={trapTab}
            >
                <Heading
                    titleId={titleId}
                    line={headingLine.current}
                    text={heading.current || detail?.title || modal.title || 'Pending confirmation'}
                    onDismiss={store.close}
                />
                {busy === 'loading' && <p>{'Loading…'}</p>}
                {detail && (
                    <>
                        {detail.state === 'pending' && <Destination detail={detail}/>}
                        <Message detail={detail}/>
                        <Previous detail={detail}/>
                        <Notes detail={detail}/>
                        <Files files={detail.files}/>
                        <Outcome
                            detail={detail}
                            store={store}
                        />
                    </>
                )}
                {error && (
                    <p
                        role='alert'
                        style={shared.error}
                    >
                        {error.message}
                    </p>
                )}
                <Actions
                    detail={detail}
                    busy={busy}
                    pending={pending}
                    onAnswer={store.answer}
                    onClose={store.close}
                />
            </div>
        </div>
    );
}

// Keeps Tab inside the dialog while it is open, as aria-modal promises.
function trapTab(e: React.KeyboardEvent<HTMLDivElement>) {
    if (e.key !== 'Tab') {
        return;
    }
    const focusable = e.currentTarget.querySelectorAll<HTMLElement>('a[href], button:not([disabled])');
    if (focusable.length === 0) {
        e.preventDefault();
        return;
    }
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    const active = document.activeElement;
    if (e.shiftKey && (active === first || active === e.currentTarget)) {
        e.preventDefault();
        last.focus();
    } else if (!e.shiftKey && active === last) {
        e.preventDefault();
        first.focus();
    }
}
