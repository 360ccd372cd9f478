// What a post carries besides its message and files, drawn as Mattermost
// draws it: message attachments (the cards integrations post), the posts it
// quotes by permalink, its link preview, its priority and the plugin's own
// attribution. The same rules as a message hold: text is set as text,
// markdown goes through renderMarkdown, a link is kept only when safeHref
// keeps it, and nothing is loaded (an image shows as a link).

import {renderMarkdown, safeHref} from './markdown';

export type Field = {title?: string; value?: string; short?: boolean};
export type Action = {type?: string; label?: string};
export type Card = {
    color?: string;
    pretext?: string;
    author?: string;
    author_link?: string;
    title?: string;
    title_link?: string;
    text?: string;
    fields?: Field[];
    footer?: string;
    image_url?: string;
    thumb_url?: string;
    actions?: Action[];
    cut?: string[];
};
export type Quoted = {
    id?: string;
    channel_name?: string;
    author?: string;
    time?: string;
    message?: string;
    message_cut?: boolean;
    files?: string[];
    more_files?: number;
    permalink?: string;
    hidden_characters?: string;
};
export type Preview = {url?: string; title?: string; description?: string; site?: string; image?: string};
export type Priority = {
    level?: string;
    acknowledgement_requested?: boolean;
    persistent_notifications?: boolean;
    acknowledged_by?: string[];
    acknowledged_by_others?: number;
};

// The server's own bounds (postcontent/limits.go, tools/post_context.go)
// with room; more than these is not ours and is not drawn.
const maxCards = 20;
const maxFields = 40;
const maxActions = 20;
const maxQuotes = 6;
const maxQuotedFiles = 10;

// A bar colour is drawn only as a hex colour (the server sends nothing
// else); set through the CSSOM, which the page's CSP allows, never as a
// style attribute.
const hexColor = /^#(?:[0-9a-fA-F]{3}){1,2}$/;

type TimeFormat = (iso: string) => string;

// renderCards draws a post's message attachments as Mattermost's
// post_attachment does: the pretext above the card, then beside its colour
// bar the author, the title (a link where it has one), the text, the fields
// (short ones two to a row), the image as a link, the buttons named, and the
// footer.
export function renderCards(doc: Document, cards: unknown, left: unknown): HTMLElement | null {
    const list = Array.isArray(cards) ? (cards as Card[]).slice(0, maxCards) : [];
    const more = Math.max(0, Math.trunc(Number(left) || 0));
    if (list.length === 0 && more === 0) {
        return null;
    }
    const out = el(doc, 'div', 'cards');
    for (const c of list) {
        out.appendChild(renderCard(doc, (c && typeof c === 'object' ? c : {}) as Card));
    }
    if (more > 0) {
        out.appendChild(el(doc, 'p', 'cut', `${more} more ${more === 1 ? 'attachment' : 'attachments'} not shown: open the post to see them.`));
    }
    return out;
}

function renderCard(doc: Document, c: Card): HTMLElement {
    const card = el(doc, 'div', 'card');
    if (str(c.pretext)) {
        const pre = el(doc, 'div', 'card-pretext');
        pre.appendChild(renderMarkdown(doc, str(c.pretext)));
        card.appendChild(pre);
    }
    const box = el(doc, 'div', 'card-box');
    const color = str(c.color);
    if (hexColor.test(color)) {
        box.style.borderLeftColor = color;
    }
    if (str(c.author)) {
        box.appendChild(linked(doc, 'div', 'card-author', str(c.author), str(c.author_link)));
    }
    if (str(c.title)) {
        box.appendChild(linked(doc, 'div', 'card-title', str(c.title), str(c.title_link)));
    }
    if (str(c.text)) {
        const text = el(doc, 'div', 'card-text');
        text.appendChild(renderMarkdown(doc, str(c.text)));
        box.appendChild(text);
    }
    const fields = Array.isArray(c.fields) ? c.fields.slice(0, maxFields) : [];
    if (fields.length > 0) {
        box.appendChild(renderFields(doc, fields));
    }
    const image = safeHref(str(c.image_url)) || safeHref(str(c.thumb_url));
    if (image) {
        const p = el(doc, 'div', 'card-image');
        p.appendChild(anchor(doc, image, 'Image: ' + image));
        box.appendChild(p);
    }
    const actions = Array.isArray(c.actions) ? c.actions.slice(0, maxActions) : [];
    if (actions.length > 0) {
        const row = el(doc, 'div', 'card-actions');
        for (const a of actions) {
            const chip = el(doc, 'span', 'card-action', str(a?.label) + (a?.type === 'menu' ? ' ▾' : ''));
            chip.title = 'Only a person can press this, in Mattermost';
            row.appendChild(chip);
        }
        box.appendChild(row);
    }
    if (str(c.footer)) {
        box.appendChild(el(doc, 'div', 'card-footer', str(c.footer)));
    }
    for (const note of (Array.isArray(c.cut) ? c.cut : []).slice(0, maxFields)) {
        box.appendChild(el(doc, 'p', 'cut', `(${str(note)})`));
    }
    card.appendChild(box);
    return card;
}

// renderFields lays fields out as Mattermost does: a short field shares a
// row with the next short one; a long one has its row to itself.
function renderFields(doc: Document, fields: Field[]): HTMLElement {
    const grid = el(doc, 'div', 'card-fields');
    for (const f of fields) {
        const cell = el(doc, 'div', f?.short ? 'card-field short' : 'card-field');
        cell.appendChild(el(doc, 'div', 'card-field-title', str(f?.title)));
        const value = el(doc, 'div', 'card-field-value');
        value.appendChild(renderMarkdown(doc, str(f?.value)));
        cell.appendChild(value);
        grid.appendChild(cell);
    }
    return grid;
}

// renderQuotes draws the posts a post links by permalink as Mattermost's
// permalink preview does: who wrote it, when (a link to it), its first
// lines, its files by name, and the channel it was posted in.
export function renderQuotes(doc: Document, quoted: unknown, time: TimeFormat): HTMLElement | null {
    const list = Array.isArray(quoted) ? (quoted as Quoted[]).slice(0, maxQuotes) : [];
    if (list.length === 0) {
        return null;
    }
    const out = el(doc, 'div', 'quotes');
    for (const raw of list) {
        const q = (raw && typeof raw === 'object' ? raw : {}) as Quoted;
        const box = el(doc, 'blockquote', 'quote');
        const head = el(doc, 'div', 'quote-head');
        head.appendChild(el(doc, 'span', 'author', str(q.author) || 'someone'));
        head.appendChild(linked(doc, 'span', 'time', time(str(q.time)), str(q.permalink)));
        box.appendChild(head);
        const body = el(doc, 'div', 'quote-body');
        body.appendChild(renderMarkdown(doc, str(q.message)));
        if (q.message_cut) {
            body.appendChild(el(doc, 'p', 'cut', '… (first lines only: open the post to read it all)'));
        }
        box.appendChild(body);
        if (str(q.hidden_characters)) {
            box.appendChild(el(doc, 'p', 'hidden-note', str(q.hidden_characters)));
        }
        const files = (Array.isArray(q.files) ? q.files : []).slice(0, maxQuotedFiles).map(str).filter(Boolean);
        const moreFiles = Math.max(0, Math.trunc(Number(q.more_files) || 0));
        if (files.length > 0) {
            box.appendChild(el(doc, 'div', 'quote-files', 'Files: ' + files.join(', ') + (moreFiles > 0 ? ` and ${moreFiles} more` : '')));
        }
        const channel = str(q.channel_name);
        if (channel) {
            box.appendChild(el(doc, 'div', 'quote-channel', 'Originally posted in ' + channel));
        }
        out.appendChild(box);
    }
    return out;
}

// renderPreview draws the link preview Mattermost stored for a post: the
// site, the title as a link, the description; its image as a link.
export function renderPreview(doc: Document, raw: unknown): HTMLElement | null {
    const pv = (raw && typeof raw === 'object' ? raw : {}) as Preview;
    const url = safeHref(str(pv.url));
    if (!url) {
        return null;
    }
    const box = el(doc, 'div', 'preview');
    if (str(pv.site)) {
        box.appendChild(el(doc, 'div', 'preview-site', str(pv.site)));
    }
    box.appendChild(linked(doc, 'div', 'preview-title', str(pv.title) || url, url));
    if (str(pv.description)) {
        box.appendChild(el(doc, 'div', 'preview-text', str(pv.description)));
    }
    const image = safeHref(str(pv.image));
    if (image) {
        const p = el(doc, 'div', 'card-image');
        p.appendChild(anchor(doc, image, 'Image: ' + image));
        box.appendChild(p);
    }
    return box;
}

// priorityLabel is the label Mattermost puts beside the author of an
// important or urgent post.
export function priorityLabel(doc: Document, raw: unknown): HTMLElement | null {
    const pr = (raw && typeof raw === 'object' ? raw : {}) as Priority;
    const level = str(pr.level);
    if (level !== 'important' && level !== 'urgent') {
        return null;
    }
    return el(doc, 'span', 'priority ' + level, level === 'urgent' ? 'Urgent' : 'Important');
}

// acknowledgements is the line under a post that asked for an
// acknowledgement: who gave it, or that nobody has yet.
export function acknowledgements(doc: Document, raw: unknown): HTMLElement | null {
    const pr = (raw && typeof raw === 'object' ? raw : {}) as Priority;
    const names = (Array.isArray(pr.acknowledged_by) ? pr.acknowledged_by : []).map(str).filter(Boolean).slice(0, maxFields);
    const others = Math.max(0, Math.trunc(Number(pr.acknowledged_by_others) || 0));
    if (!pr.acknowledgement_requested && names.length === 0 && others === 0) {
        return null;
    }
    let who = names.join(', ');
    if (others > 0) {
        who = who ? `${who} and ${others} ${others === 1 ? 'other' : 'others'}` : `${others} ${others === 1 ? 'person' : 'people'}`;
    }
    const text = who ? `✓ Acknowledged by ${who}` : 'Acknowledgement requested: nobody has acknowledged it yet';
    return el(doc, 'div', 'acks', text + (pr.persistent_notifications ? ' · persistent notifications on' : ''));
}

// linked is text in a tag, inside a link when href is one safeHref keeps.
function linked(doc: Document, tag: string, cls: string, text: string, href: string): HTMLElement {
    const e = el(doc, tag, cls, '');
    const h = safeHref(href);
    if (h) {
        e.appendChild(anchor(doc, h, text));
    } else {
        e.textContent = text;
    }
    return e;
}

function anchor(doc: Document, href: string, text: string): HTMLAnchorElement {
    const a = doc.createElement('a');
    a.href = href;
    a.textContent = text;
    a.target = '_blank';
    a.rel = 'noopener noreferrer nofollow';
    return a;
}

function str(v: unknown): string {
    return typeof v === 'string' ? v : '';
}

function el(doc: Document, tag: string, cls: string, text = ''): HTMLElement {
    const e = doc.createElement(tag);
    e.className = cls;
    e.textContent = text;
    return e;
}
