import React, {useEffect, useMemo, useRef, useSyncExternalStore} from 'react';

import {sitePath, type ConfirmationDetail, type ConfirmationFile, type HeadingSpan} from '../api';
import type {ConfirmationStore, ModalState} from '../confirmation_store';

import {buttonStyle, errorStyle, mutedStyle, primaryButtonStyle, theme} from './styles';
import {PLUGIN_ID} from '../manifest';

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
    // Border-box whatever the host's CSS says, so the padding stays inside the
    // width and the dialog keeps its margin on a phone.
    boxSizing: 'border-box',
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
// The model's text sits in a box of its own with a caption saying who wrote it,
// so nothing it writes can pass for the dialog's own words.
const aiBoxStyle: React.CSSProperties = {margin: 0, border: `1px solid ${theme.border}`, borderRadius: 6, overflow: 'hidden'};
const aiCaptionStyle: React.CSSProperties = {padding: '4px 12px', fontSize: 12, fontWeight: 600, color: theme.muted, background: theme.subtle, borderBottom: `1px solid ${theme.border}`};
const aiBodyStyle: React.CSSProperties = {padding: '8px 12px', overflowWrap: 'anywhere'};
const factsStyle: React.CSSProperties = {display: 'grid', gridTemplateColumns: 'max-content minmax(0, 1fr)', gap: '4px 16px', margin: '12px 0 0'};
const factNameStyle: React.CSSProperties = {color: theme.muted};
const factValueStyle: React.CSSProperties = {margin: 0, overflowWrap: 'anywhere'};
const preStyle: React.CSSProperties = {margin: 0, whiteSpace: 'pre-wrap', wordBreak: 'break-word', fontSize: 13};
const listStyle: React.CSSProperties = {margin: 0, paddingLeft: 18};
const fileListStyle: React.CSSProperties = {margin: 0, padding: 0, listStyle: 'none'};
const fileStyle: React.CSSProperties = {display: 'flex', gap: 12, padding: '8px 0', borderTop: `1px solid ${theme.border}`};
// The thumbnail keeps its own shape: the box fits the image, never wider.
const thumbStyle: React.CSSProperties = {display: 'block', maxWidth: 96, maxHeight: 96, width: 'auto', height: 'auto', borderRadius: 4, flex: 'none', alignSelf: 'flex-start', border: `1px solid ${theme.border}`};
const warningStyle: React.CSSProperties = {color: theme.error, fontWeight: 600};
const footerStyle: React.CSSProperties = {display: 'flex', flexWrap: 'wrap', justifyContent: 'flex-end', alignItems: 'center', gap: 8, marginTop: 20};
const linkStyle: React.CSSProperties = {color: theme.link};
// A value the model chose inside the heading: code, marked as the model's.
const aiCodeStyle: React.CSSProperties = {padding: '0 4px', borderRadius: 4, background: theme.subtle, border: `1px solid ${theme.border}`, fontSize: '0.9em', whiteSpace: 'pre-wrap', overflowWrap: 'anywhere'};
const imagePlaceholderStyle = 'font-style: italic; opacity: 0.72;';

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
                        {headingLine.current ? <Line spans={headingLine.current}/> : (heading.current || detail?.title || modal.title || 'Pending confirmation')}
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
                                {busy === 'accept' ? (detail?.action ? 'Working…' : 'Posting…') : (detail?.accept_label || 'Accept')}
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

// A line in spans: the model's values as code marked as written by the AI, the
// rest as text; neither is ever markup.
function Line({spans}: {spans: HeadingSpan[]}) {
    return (
        <>
            {spans.map((span, i) => (span.ai ? (
                <code
                    key={i}
                    style={aiCodeStyle}
                    title='Written by the AI'
                >
                    {span.text}
                </code>
            ) : (
                <React.Fragment key={i}>{span.text}</React.Fragment>
            )))}
        </>
    );
}

function lede(detail: ConfirmationDetail): string {
    if (detail.lede) {
        return detail.lede;
    }
    switch (detail.action) {
    case 'edit':
        return 'An AI assistant asks to replace the message of your post. Nothing changes until you accept.';
    case 'react':
        return `An AI assistant asks to add your :${detail.emoji ?? ''}: reaction on this post. Nothing changes until you accept.`;
    case 'unreact':
        return `An AI assistant asks to take back your :${detail.emoji ?? ''}: reaction on this post. Nothing changes until you accept.`;
    }
    return 'An AI assistant asks to post this as you. Nothing is sent until you accept.';
}

function previousHeading(detail: ConfirmationDetail): string {
    if (detail.previous_caption) {
        return detail.previous_caption;
    }
    return detail.action === 'edit' ? 'It replaces' : `The post you react to with :${detail.emoji ?? ''}:`;
}

function Details({detail}: {detail: ConfirmationDetail}) {
    const pending = detail.state === 'pending';
    const expires = formatTime(detail.expires_at, detail.time_zone);
    const where = detail.where || detail.destination;
    return (
        <>
            {pending && <p style={{...mutedStyle, fontSize: 14, margin: '4px 0 0'}}>{lede(detail)}</p>}
            {pending && detail.facts && detail.facts.length > 0 && (
                <dl style={factsStyle}>
                    {detail.facts.map((fact) => (
                        <React.Fragment key={fact.label}>
                            <dt style={factNameStyle}>{fact.label}</dt>
                            <dd style={factValueStyle}>
                                {fact.ai ? <AIText caption='Written by the AI'>{fact.value}</AIText> : fact.value}
                            </dd>
                        </React.Fragment>
                    ))}
                    {expires && (
                        <>
                            <dt style={factNameStyle}>{'Answer by'}</dt>
                            <dd style={factValueStyle}>{`${expires}; after that nothing is changed.`}</dd>
                        </>
                    )}
                </dl>
            )}
            {pending && !(detail.facts && detail.facts.length > 0) && (
                <dl style={factsStyle}>
                    {where && (
                        <>
                            <dt style={factNameStyle}>{'Where'}</dt>
                            <dd style={factValueStyle}>{where}</dd>
                        </>
                    )}
                    {detail.attribution && !detail.action && (
                        <>
                            <dt style={factNameStyle}>{'Marked'}</dt>
                            <dd style={factValueStyle}>{`“${detail.attribution}”, shown under the post`}</dd>
                        </>
                    )}
                    {expires && (
                        <>
                            <dt style={factNameStyle}>{'Answer by'}</dt>
                            <dd style={factValueStyle}>{`${expires}; after that nothing is ${detail.action ? 'changed' : 'sent'}.`}</dd>
                        </>
                    )}
                </dl>
            )}
            {detail.message !== '' && (
                <section style={sectionStyle}>
                    <h3 style={headingStyle}>{detail.action === 'edit' ? 'New message' : 'Message'}</h3>
                    <AIText caption={detail.action === 'edit' ? 'Written by the AI: your post will read exactly this' : 'Written by the AI: it is posted exactly as shown'}>
                        <PostMessage text={detail.message}/>
                    </AIText>
                </section>
            )}
            {detail.previous && (
                <section style={sectionStyle}>
                    <h3 style={headingStyle}>{previousHeading(detail)}</h3>
                    <div style={messageBoxStyle}>
                        <PostMessage text={detail.previous}/>
                    </div>
                </section>
            )}
            {detail.notes.length > 0 && (
                <section style={sectionStyle}>
                    <h3 style={headingStyle}>{detail.notes_heading || 'Who is notified'}</h3>
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

function AIText({caption, children}: {caption: string; children: React.ReactNode}) {
    return (
        <figure style={aiBoxStyle}>
            <figcaption style={aiCaptionStyle}>{caption}</figcaption>
            <div style={aiBodyStyle}>{children}</div>
        </figure>
    );
}

// Where a file comes from, as a sentence; an older server sends only the
// fragment ("written by the model").
function originOf(file: ConfirmationFile): React.ReactNode {
    if (!file.origin_text) {
        return file.origin ? `From ${file.origin}` : '';
    }
    if (!file.origin_url) {
        return `${file.origin_text}.`;
    }
    return (
        <>
            {`${file.origin_text}, from `}
            <a
                href={file.origin_url}
                target='_blank'
                rel='noopener noreferrer'
                style={linkStyle}
            >
                {'this post'}
            </a>
            {'.'}
        </>
    );
}

function FileItem({file}: {file: ConfirmationFile}) {
    const origin = originOf(file);
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
                <strong style={{overflowWrap: 'anywhere'}}>{file.name}</strong>
                <div>{[file.size_text, file.type].filter(Boolean).join(' · ')}</div>
                {file.mismatch && <div style={warningStyle}>{file.mismatch}</div>}
                {origin && <div style={mutedStyle}>{origin}</div>}
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

// The server words the outcome; these are for a server that does not yet.
const FALLBACK_OUTCOMES: Record<string, string> = {
    posted: 'Posted.',
    declined: 'Declined: nothing was posted.',
    failed: 'Failed: nothing was posted.',
    executing: 'Accepted: it is being posted now.',
    withdrawn: 'Withdrawn: the AI assistant took this back before you answered; nothing was posted.',
};

function Outcome({detail, store}: {detail: ConfirmationDetail; store: ConfirmationStore}) {
    const text = detail.outcome_text || FALLBACK_OUTCOMES[detail.state];
    switch (detail.state) {
    case 'posted':
        return (
            <p role='status' style={sectionStyle}>
                {`${text} `}
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
    case 'failed': {
        const reason = detail.outcome_text ? detail.outcome_reason : detail.outcome;
        return <p role='status' style={errorStyle}>{reason ? `${text} ${reason}` : text}</p>;
    }
    case 'declined':
    case 'withdrawn':
    case 'executing':
        return <p role='status' style={sectionStyle}>{text}</p>;
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
            return postUtils.messageHtmlToComponent(withoutImages(postUtils.formatText(text, {atMentions: true, markdown: true})));
        } catch {
            return null;
        }
    }, [text]);
    if (rendered == null) {
        return <pre style={preStyle}>{text}</pre>;
    }
    return <div className='post-message__text'>{rendered}</div>;
}

// An image in the model's message would be fetched the moment the modal opens,
// before the person answers, telling its address whatever the model put in it.
// So every image is shown as words saying where it points, as the page shows
// them; the post itself shows the image once it is sent. Parsed in a document
// of its own, which loads nothing.
export function withoutImages(html: string): string {
    if (!(/<img/i).test(html)) {
        return html;
    }
    const doc = new DOMParser().parseFromString(html, 'text/html');
    doc.querySelectorAll('img').forEach((img) => {
        const words = doc.createElement('span');
        words.setAttribute('style', imagePlaceholderStyle);
        const alt = img.getAttribute('alt');
        words.textContent = `[image${alt ? ` “${alt}”` : ''} from ${img.getAttribute('src') ?? 'nowhere'}]`;
        img.replaceWith(words);
    });
    return doc.body.innerHTML;
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

// A time of day in the person's Mattermost time zone, named, or else in the
// browser's own.
export function formatTime(iso: string, timeZone?: string): string {
    const date = new Date(iso);
    if (isNaN(date.getTime())) {
        return '';
    }
    if (timeZone) {
        try {
            return `${date.toLocaleTimeString([], {hour: '2-digit', minute: '2-digit', timeZone})} (${timeZone})`;
        } catch {
            // An unknown zone name: the browser's own time below.
        }
    }
    return date.toLocaleTimeString([], {hour: '2-digit', minute: '2-digit'});
}
