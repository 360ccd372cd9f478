// Renders a write that waits for the person (ui://mattermost/pending) from
// a write tool's or get_pending's result: where it goes, who is notified,
// the message as Mattermost will show it, its files, until when it waits,
// and one link: the confirmation page, where the person answers in their
// own Mattermost session. Everything shown is text content; the message
// goes through the thread view's safe markdown renderer.

import {renderMarkdown, safeHref} from './markdown';
import {formatSize, formatTime, type Options} from './posts';

export const previewMetaKey = 'mattermost/pending';

export type WriteResult = {state?: string; id?: string; url?: string; outcome?: string; permalink?: string; action?: string};
export type PreviewFile = {name: string; size: number; type?: string};
export type Preview = {place?: string; message?: string; files?: PreviewFile[]; notes?: string[]; notes_heading?: string; expires_at?: string};
export type Pending = {write: WriteResult; preview: Preview};

const maxFilesShown = 10; // a post takes at most 10 files
const maxNotesShown = 10;

const states: Record<string, string> = {
    pending: 'Waiting for you in Mattermost',
    executing: 'Accepted: being done now',
    posted: 'posted',
    declined: 'Declined: nothing was sent',
    failed: 'Failed',
    withdrawn: 'Withdrawn: the assistant cancelled it, nothing was sent',
    expired: 'Expired: nothing was sent',
};

// pendingOf reads the write from a create_post-like result ({state, id,
// url…}) or get_pending's ({pending: [one]}), and the preview from _meta.
export function pendingOf(structured: unknown, meta: unknown, previous?: Pending): Pending | null {
    let w = structured as WriteResult & {pending?: WriteResult[]} | null;
    if (w && Array.isArray(w.pending)) {
        w = w.pending.length === 1 ? w.pending[0] : null;
    }
    if (!w || typeof w !== 'object' || typeof w.state !== 'string') {
        return null;
    }
    const m = (meta && typeof meta === 'object' ? (meta as Record<string, unknown>)[previewMetaKey] : null) as Preview | null;
    const preview = m && typeof m === 'object' ? m : previous?.preview ?? {};
    return {write: {...previous?.write, ...w}, preview};
}

// confirmationHref keeps the confirmation page link only if it is an
// http(s) page of the plugin itself on the server that answered.
export function confirmationHref(raw: unknown): string | null {
    if (typeof raw !== 'string') {
        return null;
    }
    const href = safeHref(raw);
    if (!href) {
        return null;
    }
    return (/^\/(?:[^/]+\/)*plugins\/[^/]+\/confirm/).test(new URL(href).pathname) ? href : null;
}

function el(doc: Document, tag: string, cls: string, text?: string): HTMLElement {
    const e = doc.createElement(tag);
    e.className = cls;
    if (text !== undefined) {
        e.textContent = text;
    }
    return e;
}

// unlinked turns the message's links into text showing where they lead:
// the view's one link is the confirmation page, so nothing in a message
// the person has not accepted yet can be followed from here.
function unlinked(doc: Document, f: DocumentFragment): DocumentFragment {
    for (const a of Array.from(f.querySelectorAll('a'))) {
        const s = el(doc, 'span', 'link');
        s.title = a.getAttribute('href') ?? '';
        s.append(...Array.from(a.childNodes));
        a.replaceWith(s);
    }
    return f;
}

// openLink is a view's one action: a page of Mattermost, opened through
// the host when it can (onOpen), else in a new tab.
export function openLink(doc: Document, href: string, text: string, onOpen?: (href: string) => void): HTMLAnchorElement {
    const a = el(doc, 'a', 'open', text) as HTMLAnchorElement;
    a.href = href;
    a.target = '_blank';
    a.rel = 'noopener noreferrer';
    if (onOpen) {
        a.addEventListener('click', (e) => {
            e.preventDefault();
            onOpen(href);
        });
    }
    return a;
}

export function renderPending(doc: Document, root: HTMLElement, p: Pending, opts: Options = {}, onOpen?: (href: string) => void) {
    root.replaceChildren();
    const {write: w, preview: v} = p;
    const box = el(doc, 'section', 'pending');
    const state = el(doc, 'div', `state state-${String(w.state).replace(/[^a-z]/g, '')}`, states[w.state ?? ''] ?? String(w.state));
    state.setAttribute('role', 'status');
    box.appendChild(state);
    if (v.place) {
        const where = el(doc, 'div', 'where', 'To ');
        where.appendChild(el(doc, 'strong', '', String(v.place)));
        box.appendChild(where);
    }
    const notes = Array.isArray(v.notes) ? v.notes.slice(0, maxNotesShown) : [];
    if (notes.length) {
        // The server heads the notes as the page does (who is notified by a
        // post, who sees a pin, what leaving means): the view keeps no
        // heading of its own.
        if (typeof v.notes_heading === 'string' && v.notes_heading) {
            box.appendChild(el(doc, 'div', 'label', v.notes_heading));
        }
        const ul = el(doc, 'ul', 'notes');
        for (const n of notes) {
            ul.appendChild(el(doc, 'li', '', String(n)));
        }
        box.appendChild(ul);
    }
    if (typeof v.message === 'string' && v.message) {
        box.appendChild(el(doc, 'div', 'label', 'The message as it will look'));

        // In its own frame, marked as the AI's words, as the confirmation
        // page shows it: nothing in it is the plugin's or Mattermost's.
        const frame = el(doc, 'figure', 'ai');
        frame.appendChild(el(doc, 'figcaption', 'ai-mark', 'Written by the AI: it is posted exactly as shown'));
        const body = el(doc, 'div', 'body post');
        body.appendChild(unlinked(doc, renderMarkdown(doc, v.message)));
        frame.appendChild(body);
        box.appendChild(frame);
    }
    const files = Array.isArray(v.files) ? v.files : [];
    if (files.length) {
        const ul = el(doc, 'ul', 'files');
        for (const f of files.slice(0, maxFilesShown)) {
            const li = doc.createElement('li');
            li.appendChild(el(doc, 'span', 'name', String(f.name)));
            li.appendChild(el(doc, 'span', 'size', [f.type, formatSize(Number(f.size) || 0)].filter(Boolean).map(String).join(' · ')));
            ul.appendChild(li);
        }
        box.appendChild(ul);
        if (files.length > maxFilesShown) {
            box.appendChild(el(doc, 'div', 'more', `and ${files.length - maxFilesShown} more files`));
        }
    }
    if (w.state === 'pending') {
        if (v.expires_at) {
            box.appendChild(el(doc, 'div', 'time', `Waits until ${formatTime(String(v.expires_at), opts)}; after that nothing is sent.`));
        }
        const href = confirmationHref(w.url);
        if (href) {
            box.appendChild(openLink(doc, href, 'Open in Mattermost to answer', onOpen));
            box.appendChild(el(doc, 'div', 'more', 'You answer there, in your own Mattermost session; this view cannot accept or decline.'));
        }
    } else if (w.state === 'failed' && w.outcome) {
        box.appendChild(el(doc, 'div', 'more', String(w.outcome)));
    }
    root.appendChild(box);
}
