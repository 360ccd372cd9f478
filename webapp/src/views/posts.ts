// Renders the structured result of read_thread, read_channel and
// search_posts (a page of posts, tools.PostPage on the server) as Mattermost
// shows posts. Everything comes from the person's own tool call; nothing is
// fetched. Every string is set as text, never parsed as HTML.

import {acknowledgements, priorityLabel, renderCards, renderPreview, renderQuotes, type Card, type Preview, type Priority, type Quoted} from './around';
import {glyph} from './emoji';
import {renderMarkdown, safeHref} from './markdown';

export type FileRef = {file_id: string; name: string; type: string; size: number};
export type Post = {
    id: string;
    channel_name?: string;
    author: string;
    time: string;
    message: string;
    message_cut?: boolean;
    root_id?: string;
    reply_count?: number;
    type?: string;
    attachments?: FileRef[];
    permalink: string;
    reactions?: Reaction[];
    more_emoji?: number;
    more_reactions?: number;
    edited_at?: string;
    pinned?: boolean;
    last_reply_at?: string;
    quoted_posts?: Quoted[];
    hidden_characters?: string;
    message_attachments?: Card[];
    message_attachments_not_shown?: number;
    link_preview?: Preview;
    priority?: Priority;
    mcp_attribution?: string;
    system_message?: boolean;
};

// One emoji's reactions (tools.ReactionView): the first people who reacted,
// as Mattermost shows them to the person, and how many others did.
export type Reaction = {emoji: string; count: number; users?: string[]; others?: number};
export type PostPage = {
    channel?: {name?: string; display_name?: string; team?: string};
    posts?: Post[];
    next_cursor?: string;
    complete?: boolean;
};

export type Image = {mimeType: string; data: string};
export type Options = {
    timeZone?: string;
    locale?: string;

    // thumbnail reads an attached image's thumbnail as the person (the
    // server's thumbnail resource, through the host); absent when the host
    // cannot read the server's resources.
    thumbnail?: (fileId: string) => Promise<Image | null>;
};

// Thumbnails a page loads at most: each is a small read of Mattermost's own
// thumbnail, and counts against the person's rate of reads a minute.
export const maxThumbnails = 24;

// The image types a thumbnail is drawn from: those browsers draw.
export const thumbnailTypes = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

// What an image's data must be: base64, nothing else in a data: URL.
const base64 = /^[A-Za-z0-9+/]+=*$/;

// The attachment types the server has a thumbnail of.
const thumbnailed = new Set([...thumbnailTypes, 'image/bmp', 'image/tiff']);

// A page holds at most 100 posts (the tools' own bound); more is not ours.
const maxPosts = 200;

export function renderPage(doc: Document, root: HTMLElement, data: unknown, opts: Options = {}) {
    root.replaceChildren();
    const page = (data && typeof data === 'object' ? data : {}) as PostPage;
    const posts = Array.isArray(page.posts) ? page.posts.slice(0, maxPosts) : [];
    if (page.channel) {
        // read_channel answers newest first; Mattermost shows a channel oldest at the top.
        // Times may be equal to the second, so the order is reversed, not sorted.
        posts.reverse();
    }
    const title = channelTitle(page, posts);
    if (title) {
        const h = el(doc, 'header', 'channel', title);
        root.appendChild(h);
    }
    if (posts.length === 0) {
        root.appendChild(el(doc, 'p', 'empty', 'No posts to show.'));
        return;
    }

    // Each post names its channel only when the page spans several (search).
    const oneChannel = Boolean(page.channel) || new Set(posts.map((p) => str(p.channel_name))).size === 1;
    const list = doc.createElement('ol');
    list.className = 'posts';
    for (const p of posts) {
        list.appendChild(renderPost(doc, p, opts, oneChannel));
    }
    root.appendChild(list);
    if (page.complete === false || page.next_cursor) {
        root.appendChild(el(doc, 'p', 'more', 'More posts follow: ask for the next page.'));
    }
    addThumbnails(doc, root, opts);
}

// thumbnailURI is the server's resource of an attachment's thumbnail
// (resources.ThumbnailTemplate), its id escaped as RFC 6570 does.
export function thumbnailURI(fileId: string): string {
    return `mattermost://file/${encodeURIComponent(fileId)}/thumbnail`;
}

// thumbnailOf is the image a resources/read of a thumbnail answered: the
// first blob of an image type browsers draw, as base64; else null.
export function thumbnailOf(res: unknown): Image | null {
    const contents = (res && typeof res === 'object' && Array.isArray((res as {contents?: unknown}).contents)) ? (res as {contents: unknown[]}).contents : [];
    for (const c of contents) {
        const b = (c && typeof c === 'object' ? c : {}) as {mimeType?: unknown; blob?: unknown};
        if (typeof b.blob === 'string' && typeof b.mimeType === 'string' && thumbnailTypes.has(b.mimeType) && base64.test(b.blob)) {
            return {mimeType: b.mimeType, data: b.blob};
        }
    }
    return null;
}

// addThumbnails puts each image attachment's thumbnail before its name,
// drawn only from base64 data of an image type (CSP: img-src data:).
export function addThumbnails(doc: Document, root: HTMLElement, opts: Options): Promise<void> {
    const read = opts.thumbnail;
    if (!read) {
        return Promise.resolve();
    }
    const items = Array.from(root.querySelectorAll<HTMLElement>('.files li[data-image]')).slice(0, maxThumbnails);
    return Promise.all(items.map(async (item) => {
        const img = await read(item.dataset.fileId || '').catch(() => null);
        if (!img || item.querySelector('.thumb') || !thumbnailTypes.has(img.mimeType) || !base64.test(img.data)) {
            return;
        }
        const e = doc.createElement('img');
        e.className = 'thumb';
        e.alt = item.querySelector('.name')?.textContent || '';
        e.src = `data:${img.mimeType};base64,${img.data}`;
        item.prepend(e);
    })).then(() => undefined);
}

function channelTitle(page: PostPage, posts: Post[]): string {
    const c = page.channel;
    const name = str(c?.display_name) || str(c?.name);
    if (name) {
        return name;
    }
    const names = new Set(posts.map((p) => str(p.channel_name)).filter(Boolean));
    return names.size === 1 ? [...names][0] : '';
}

function renderPost(doc: Document, p: Post, opts: Options, oneChannel: boolean): HTMLElement {
    const li = doc.createElement('li');
    li.className = p.root_id ? 'post reply' : 'post';
    const head = doc.createElement('div');
    head.className = 'head';
    head.appendChild(el(doc, 'span', 'author', str(p.author) || 'someone'));
    const when = formatTime(str(p.time), opts);
    const href = safeHref(str(p.permalink));
    if (href) {
        const a = doc.createElement('a');
        a.className = 'time';
        a.href = href;
        a.target = '_blank';
        a.rel = 'noopener noreferrer';
        a.textContent = when;
        a.title = 'Open in Mattermost';
        head.appendChild(a);
    } else {
        head.appendChild(el(doc, 'span', 'time', when));
    }
    const channel = str(p.channel_name);
    if (channel && !oneChannel) {
        head.appendChild(el(doc, 'span', 'in', channel.startsWith('~') ? channel : '~' + channel));
    }
    const priority = priorityLabel(doc, p.priority);
    if (priority) {
        head.appendChild(priority);
    }
    if (p.pinned === true) {
        head.appendChild(el(doc, 'span', 'pinned', 'Pinned'));
    }
    li.appendChild(head);
    const body = doc.createElement('div');

    // A system message is one Mattermost wrote; an integration's post with
    // message attachments (type slack_attachment) is an ordinary post.
    body.className = p.system_message === true || str(p.type).startsWith('system_') ? 'body system' : 'body';
    body.appendChild(renderMarkdown(doc, str(p.message)));
    if (str(p.edited_at)) {
        // Mattermost puts the mark at the end of the message's last line.
        const mark = el(doc, 'span', 'edited', '(edited)');
        mark.title = 'Edited ' + formatTime(str(p.edited_at), opts);
        (body.lastElementChild?.tagName === 'P' ? body.lastElementChild : body).append(' ', mark);
    }
    if (p.message_cut) {
        body.appendChild(el(doc, 'p', 'cut', '… (cut: open the post to read it all)'));
    }
    if (str(p.hidden_characters)) {
        body.appendChild(el(doc, 'p', 'hidden-note', str(p.hidden_characters)));
    }
    li.appendChild(body);
    for (const part of [
        renderCards(doc, p.message_attachments, p.message_attachments_not_shown),
        renderQuotes(doc, p.quoted_posts, (iso) => formatTime(iso, opts)),
        renderPreview(doc, p.link_preview),
    ]) {
        if (part) {
            li.appendChild(part);
        }
    }
    if (str(p.mcp_attribution)) {
        li.appendChild(el(doc, 'div', 'attribution', str(p.mcp_attribution)));
    }
    const files = Array.isArray(p.attachments) ? p.attachments : [];
    if (files.length > 0) {
        const ul = doc.createElement('ul');
        ul.className = 'files';
        for (const f of files) {
            const item = doc.createElement('li');
            item.dataset.fileId = str(f.file_id);
            if (thumbnailed.has(str(f.type).split(';')[0].trim())) {
                item.dataset.image = '';
            }
            item.appendChild(el(doc, 'span', 'name', str(f.name)));
            item.appendChild(el(doc, 'span', 'size', formatSize(f.size) + (f.type ? ' · ' + str(f.type) : '')));
            ul.appendChild(item);
        }
        li.appendChild(ul);
    }
    const reactions = Array.isArray(p.reactions) ? p.reactions.slice(0, maxReactions) : [];
    if (reactions.length > 0) {
        const r = doc.createElement('div');
        r.className = 'reactions';
        for (const x of reactions) {
            r.appendChild(renderReaction(doc, x));
        }
        const more = Number(p.more_emoji) || 0;
        if (more > 0) {
            const n = Number(p.more_reactions) || 0;
            const chip = el(doc, 'span', 'reaction more-emoji', `+${more} more`);
            chip.title = `${n} more ${n === 1 ? 'reaction' : 'reactions'} with ${more} other emoji: open the post to see them`;
            r.appendChild(chip);
        }
        li.appendChild(r);
    }
    const acks = acknowledgements(doc, p.priority);
    if (acks) {
        li.appendChild(acks);
    }
    if (p.reply_count && p.reply_count > 0 && !p.root_id) {
        const replies = p.reply_count === 1 ? '1 reply' : `${Number(p.reply_count)} replies`;
        const last = str(p.last_reply_at) ? ` · last reply ${formatTime(str(p.last_reply_at), opts)}` : '';
        li.appendChild(el(doc, 'div', 'replies', replies + last));
    }
    return li;
}

// A post lists at most 8 emoji (the tools' own bound); more is not ours.
const maxReactions = 50;

// renderReaction is one emoji's chip as Mattermost shows it: the emoji (a
// custom or unknown one as :name:, never an image) and the count, with who
// reacted in the tooltip.
function renderReaction(doc: Document, x: Reaction): HTMLElement {
    const name = str(x.emoji);
    const count = Math.max(0, Math.trunc(Number(x.count) || 0));
    const chip = doc.createElement('span');
    chip.className = 'reaction';
    const g = glyph(name);
    chip.appendChild(el(doc, 'span', g ? 'emoji' : 'emoji custom', g || `:${name}:`));
    chip.appendChild(el(doc, 'span', 'count', String(count)));
    chip.title = reactedWith(x, name, count);
    chip.setAttribute('aria-label', chip.title);
    return chip;
}

// reactedWith is the tooltip Mattermost shows on a reaction: "@ann, @bo and
// 3 others reacted with :tada:".
export function reactedWith(x: Reaction, name: string, count: number): string {
    const users = (Array.isArray(x.users) ? x.users : []).map(str).filter(Boolean).slice(0, count || undefined);
    const others = Math.max(0, Math.trunc(Number(x.others) || 0), users.length === 0 ? count : 0);
    let who: string;
    if (others > 0) {
        who = users.length > 0 ? `${users.join(', ')} and ${others} ${others === 1 ? 'other' : 'others'}` : `${others} ${others === 1 ? 'person' : 'people'}`;
    } else if (users.length > 1) {
        who = `${users.slice(0, -1).join(', ')} and ${users[users.length - 1]}`;
    } else {
        who = users[0] || 'Someone';
    }
    return `${who} reacted with :${name}:`;
}

export function formatTime(iso: string, opts: Options): string {
    const t = new Date(iso);
    if (isNaN(t.getTime())) {
        return iso;
    }
    const fmt = (tz?: string) => new Intl.DateTimeFormat(opts.locale || 'en-US', {
        dateStyle: 'medium', timeStyle: 'short', timeZone: tz,
    }).format(t);
    try {
        return fmt(opts.timeZone);
    } catch {
        return fmt(undefined); // a time zone the browser does not know
    }
}

export function formatSize(n: number): string {
    const b = Number(n) || 0;
    if (b < 1024) {
        return `${b} B`;
    }
    if (b < 1024 * 1024) {
        return `${(b / 1024).toFixed(1)} KB`;
    }
    return `${(b / (1024 * 1024)).toFixed(1)} MB`;
}

function str(v: unknown): string {
    return typeof v === 'string' ? v : '';
}

function el(doc: Document, tag: string, cls: string, text: string): HTMLElement {
    const e = doc.createElement(tag);
    e.className = cls;
    e.textContent = text;
    return e;
}
