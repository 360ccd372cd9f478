import React, {useEffect, useMemo, useRef, useSyncExternalStore} from 'react';

import {sitePath, type ConfirmationDetail, type ConfirmationFile} from '../api';
import type {ConfirmationStore, ModalState} from '../confirmation_store';

import {buttonStyle, errorStyle, mutedStyle, primaryButtonStyle, theme} from './styles';

const overlayStyle: React.CSSProperties = {
    position: 'fixed',
    inset: 0,
    // Above Mattermost's own modals (1050) and sidebars.
    zIndex: 1100,
    display: 'flex',
    alignItems: 'center',
    justifyContent: 'center',
    background: 'rgba(0, 0, 0, 0.5)',
};

const dialogStyle: React.CSSProperties = {
    width: 'min(640px, calc(100vw - 32px))',
    maxHeight: 'calc(100vh - 48px)',
    overflowY: 'auto',
    padding: '20px 24px',
    background: theme.bg,
    color: theme.text,
    borderRadius: 8,
    boxShadow: '0 20px 32px rgba(0, 0, 0, 0.12)',
    fontSize: 14,
    outline: 'none',
};

const headerStyle: React.CSSProperties = {display: 'flex', alignItems: 'flex-start', gap: 12};
const titleStyle: React.CSSProperties = {flex: 1, margin: 0, fontSize: 18, fontWeight: 600};
const closeIconStyle: React.CSSProperties = {...buttonStyle, border: 'none', padding: '0 6px', fontSize: 20, lineHeight: 1};
const sectionStyle: React.CSSProperties = {margin: '16px 0 0'};
const headingStyle: React.CSSProperties = {margin: '0 0 6px', fontSize: 12, fontWeight: 600, textTransform: 'uppercase', color: theme.muted};
const messageBoxStyle: React.CSSProperties = {padding: '8px 12px', border: `1px solid ${theme.border}`, borderRadius: 4, background: theme.subtle};
const preStyle: React.CSSProperties = {margin: 0, whiteSpace: 'pre-wrap', wordBreak: 'break-word', fontSize: 13};
const listStyle: React.CSSProperties = {margin: 0, paddingLeft: 18};
const fileListStyle: React.CSSProperties = {margin: 0, padding: 0, listStyle: 'none'};
const fileStyle: React.CSSProperties = {display: 'flex', gap: 12, padding: '8px 0', borderTop: `1px solid ${theme.border}`};
const thumbStyle: React.CSSProperties = {width: 64, height: 64, objectFit: 'cover', borderRadius: 4, flex: 'none'};
const warningStyle: React.CSSProperties = {color: theme.error, fontWeight: 600};
const footerStyle: React.CSSProperties = {display: 'flex', alignItems: 'center', gap: 8, marginTop: 20};
const linkStyle: React.CSSProperties = {color: theme.link};

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

function Dialog({modal, store}: {modal: ModalState; store: ConfirmationStore}) {
    const ref = useRef<HTMLDivElement>(null);
    const {detail, busy, error} = modal;
    const titleId = `mcp-server-confirmation-${modal.id}`;

    // The dialog itself takes focus, not Accept: a keystroke meant for the message
    // box must never answer a confirmation that just popped up.
    useEffect(() => {
        const previous = document.activeElement as HTMLElement | null;
        ref.current?.focus();
        return () => previous?.focus?.();
    }, []);

    // Capture phase, so Mattermost's own Escape handling (closing the sidebar,
    // marking the channel read) does not run as well.
    useEffect(() => {
        const onKey = (e: KeyboardEvent) => {
            if (e.key === 'Escape') {
                e.stopPropagation();
                e.preventDefault();
                store.close();
            }
        };
        document.addEventListener('keydown', onKey, true);
        return () => document.removeEventListener('keydown', onKey, true);
    }, [store]);

    const pending = detail?.state === 'pending' && !error?.gone;

    return (
        <div style={overlayStyle}>
            <div
                ref={ref}
                role='dialog'
                aria-modal='true'
                aria-labelledby={titleId}
                tabIndex={-1}
                style={dialogStyle}
                onKeyDown={trapTab}
            >
                <div style={headerStyle}>
                    <h2
                        id={titleId}
                        style={titleStyle}
                    >
                        {detail?.title || modal.title || 'Pending confirmation'}
                    </h2>
                    <button
                        type='button'
                        aria-label='Dismiss'
                        style={closeIconStyle}
                        onClick={store.close}
                    >
                        {'×'}
                    </button>
                </div>
                {busy === 'loading' && <p>{'Loading…'}</p>}
                {detail && <Details detail={detail}/>}
                {detail && <Outcome detail={detail} store={store}/>}
                {error && <p role='alert' style={errorStyle}>{error.message}</p>}
                <div style={footerStyle}>
                    {detail?.page_url && (
                        <a
                            href={sitePath(detail.page_url)}
                            target='_blank'
                            rel='noopener noreferrer'
                            style={{...linkStyle, marginRight: 'auto'}}
                        >
                            {'Open in a page'}
                        </a>
                    )}
                    {pending ? (
                        <>
                            <button
                                type='button'
                                style={buttonStyle}
                                disabled={busy !== null}
                                onClick={() => store.answer('decline')}
                            >
                                {busy === 'decline' ? 'Declining…' : 'Decline'}
                            </button>
                            <button
                                type='button'
                                style={primaryButtonStyle}
                                disabled={busy !== null}
                                onClick={() => store.answer('accept')}
                            >
                                {busy === 'accept' ? 'Posting…' : 'Accept'}
                            </button>
                        </>
                    ) : (
                        <button
                            type='button'
                            style={{...buttonStyle, marginLeft: 'auto'}}
                            onClick={store.close}
                        >
                            {'Close'}
                        </button>
                    )}
                </div>
            </div>
        </div>
    );
}

function Details({detail}: {detail: ConfirmationDetail}) {
    const expires = formatTime(detail.expires_at);
    return (
        <>
            {detail.destination && (
                <p style={sectionStyle}>
                    {'Where: '}
                    <strong>{detail.destination}</strong>
                </p>
            )}
            {detail.state === 'pending' && expires && (
                <p style={mutedStyle}>{`Waits for your answer until ${expires}.`}</p>
            )}
            {detail.message !== '' && (
                <section style={sectionStyle}>
                    <h3 style={headingStyle}>{detail.action === 'edit' ? 'New message' : 'Message'}</h3>
                    <div style={messageBoxStyle}>
                        <PostMessage text={detail.message}/>
                    </div>
                </section>
            )}
            {detail.previous && (
                <section style={sectionStyle}>
                    <h3 style={headingStyle}>{detail.action === 'edit' ? 'It replaces' : `The post you react to with :${detail.emoji ?? ''}:`}</h3>
                    <div style={messageBoxStyle}>
                        <PostMessage text={detail.previous}/>
                    </div>
                </section>
            )}
            {detail.notes.length > 0 && (
                <section style={sectionStyle}>
                    <h3 style={headingStyle}>{'Notifications'}</h3>
                    <ul style={listStyle}>
                        {detail.notes.map((note) => <li key={note}>{note}</li>)}
                    </ul>
                </section>
            )}
            {detail.files.length > 0 && (
                <section style={sectionStyle}>
                    <h3 style={headingStyle}>{`Files (${detail.files.length})`}</h3>
                    <ul style={fileListStyle}>
                        {detail.files.map((file) => (
                            <FileItem
                                key={file.index}
                                file={file}
                            />
                        ))}
                    </ul>
                </section>
            )}
        </>
    );
}

function FileItem({file}: {file: ConfirmationFile}) {
    return (
        <li style={fileStyle}>
            {file.thumbnail_url && (
                <img
                    src={sitePath(file.thumbnail_url)}
                    alt={`Preview of ${file.name}`}
                    style={thumbStyle}
                />
            )}
            <div style={{minWidth: 0, flex: 1}}>
                <strong style={{wordBreak: 'break-all'}}>{file.name}</strong>
                <div>{[file.size_text, file.type].filter(Boolean).join(' · ')}</div>
                {file.mismatch && <div style={warningStyle}>{file.mismatch}</div>}
                {file.origin && <div style={mutedStyle}>{`From ${file.origin}`}</div>}
                {file.sha256 && <div style={mutedStyle}>{`SHA-256 ${file.sha256}…`}</div>}
                {file.preview && (
                    <pre style={{...preStyle, ...messageBoxStyle, marginTop: 6, maxHeight: 160, overflow: 'auto'}}>
                        {file.preview}
                    </pre>
                )}
            </div>
        </li>
    );
}

function Outcome({detail, store}: {detail: ConfirmationDetail; store: ConfirmationStore}) {
    switch (detail.state) {
    case 'posted':
        return (
            <p role='status' style={sectionStyle}>
                {'Posted. '}
                {detail.permalink && (
                    <a
                        href={detail.permalink}
                        style={linkStyle}
                        onClick={(e) => followInApp(e, detail.permalink, store)}
                    >
                        {'View the post'}
                    </a>
                )}
            </p>
        );
    case 'declined':
        return <p role='status' style={sectionStyle}>{'Declined: nothing was posted.'}</p>;
    case 'failed':
        return <p role='status' style={errorStyle}>{`Not posted: ${detail.outcome || 'the post failed.'}`}</p>;
    case 'executing':
        return <p role='status' style={sectionStyle}>{'Accepted; it is being posted now.'}</p>;
    default:
        return null;
    }
}

// Rendered the way Mattermost renders posts when the host provides its renderer;
// otherwise the raw markdown, which is still exactly what will be posted.
export function PostMessage({text}: {text: string}) {
    const rendered = useMemo(() => {
        const postUtils = window.PostUtils;
        if (!postUtils) {
            return null;
        }
        try {
            return postUtils.messageHtmlToComponent(postUtils.formatText(text, {atMentions: true, markdown: true}));
        } catch {
            return null;
        }
    }, [text]);
    if (rendered == null) {
        return <pre style={preStyle}>{text}</pre>;
    }
    return <div className='post-message__text'>{rendered}</div>;
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

function formatTime(iso: string): string {
    const date = new Date(iso);
    return isNaN(date.getTime()) ? '' : date.toLocaleTimeString([], {hour: '2-digit', minute: '2-digit'});
}
