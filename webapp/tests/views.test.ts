// The thread view renders posts from a tool's structured result; nothing a
// post, a file name or a channel name holds can run or load.
import {beforeEach, describe, expect, it} from 'vitest';

import {payloads} from './xss_payloads';

import {glyph} from '../src/views/emoji';
import {renderMarkdown, safeHref} from '../src/views/markdown';
import {addThumbnails, formatTime, maxThumbnails, reactedWith, renderPage, thumbnailOf, thumbnailURI, type PostPage} from '../src/views/posts';

function inert(root: HTMLElement) {
    expect(root.querySelectorAll('script,img,svg,iframe,object,embed,style,link,meta,form,math,details,body').length).toBe(0);
    for (const e of Array.from(root.querySelectorAll('*'))) {
        for (const a of Array.from(e.attributes)) {
            expect(a.name.startsWith('on'), `${e.tagName} ${a.name}`).toBe(false);
        }
    }
    for (const a of Array.from(root.querySelectorAll('a'))) {
        expect(a.getAttribute('href') ?? '').toMatch(/^https?:\/\/[^@]*$/);
    }
    expect((window as unknown as {pwned?: number}).pwned).toBeUndefined();
}

describe('the thread view', () => {
    const fresh = () => {
        document.body.innerHTML = '<main id="root"></main>';
        return document.getElementById('root') as HTMLElement;
    };
    let root: HTMLElement;
    beforeEach(() => {
        root = fresh();
    });

    it('has thirty XSS payloads to try', () => {
        expect(payloads.length).toBe(30);
    });

    for (const [i, p] of payloads.entries()) {
        it(`keeps payload ${i + 1} inert in a post, a file name and a channel name`, () => {
            const into = fresh();
            const page: PostPage = {
                channel: {display_name: p, name: p},
                posts: [{
                    id: 'p1',
                    author: p,
                    time: '2026-01-02T03:04:05Z',
                    message: p,
                    channel_name: p,
                    attachments: [{file_id: 'f1', name: p, type: p, size: 10}],
                    permalink: p,
                    reactions: [{emoji: p, count: 2, users: [p, '@ann'], others: 0}],
                    edited_at: p,
                    pinned: true,
                    hidden_characters: p,
                    mcp_attribution: p,
                    message_attachments: [{color: p,
                        pretext: p,
                        author: p,
                        author_link: p,
                        title: p,
                        title_link: p,
                        text: p,
                        fields: [{title: p, value: p, short: true}],
                        footer: p,
                        image_url: p,
                        thumb_url: p,
                        actions: [{type: p, label: p}],
                        cut: [p]}],
                    quoted_posts: [{id: p, channel_name: p, author: p, time: p, message: p, files: [p], permalink: p, hidden_characters: p}],
                    link_preview: {url: p, title: p, description: p, site: p, image: p},
                    priority: {level: p, acknowledged_by: [p]},
                }],
            };
            renderPage(document, into, page);
            inert(into);
            const chip = into.querySelector('.reaction') as HTMLElement;
            expect(chip.querySelector('.emoji')?.textContent).toBe(`:${p}:`);
            expect(chip.title).toBe(`${p} and @ann reacted with :${p}:`);
            expect(into.querySelector('.author')?.textContent).toBe(p);
            expect(into.querySelector('.files .name')?.textContent).toBe(p);
            expect(into.querySelector('.channel')?.textContent).toBe(p);
        });
    }

    it('draws a webhook alert as Mattermost draws its card: bar, pretext, author, linked title, text, fields in columns, image as a link, footer', () => {
        renderPage(document, root, {posts: [{
            id: 'p1',
            author: 'integration "alertbot" (an incoming webhook of @admin)',
            time: '2026-01-02T23:30:00Z',
            message: '',
            type: 'slack_attachment',
            permalink: 'https://mm.example/team/pl/p1',
            message_attachments: [{
                color: '#e40303',
                pretext: 'Disk **alert** on db-1',
                author: 'Prometheus',
                author_link: 'data:text/html,<b>x</b>',
                title: 'db-1 disk 91% full',
                title_link: 'https://alerts.example/db-1',
                text: 'Free space fell below _10%_.',
                fields: [{title: 'Host', value: 'db-1', short: true}, {title: 'Severity', value: '`critical`', short: true}, {title: 'Runbook', value: 'https://wiki.example/disk'}],
                footer: 'alertmanager',
                image_url: 'https://alerts.example/graph.png',
            }],
        }]});
        const box = root.querySelector('.card-box') as HTMLElement;
        expect(box.style.borderLeftColor).toMatch(/^(#e40303|rgb\(228, 3, 3\))$/);
        expect(root.querySelector('.card-pretext strong')?.textContent).toBe('alert');
        expect(root.querySelector('.card-author')?.textContent).toBe('Prometheus');
        expect(root.querySelector('.card-author a')).toBeNull();
        const title = root.querySelector('.card-title a') as HTMLAnchorElement;
        expect([title.textContent, title.href]).toEqual(['db-1 disk 91% full', 'https://alerts.example/db-1']);
        expect(root.querySelector('.card-text em')?.textContent).toBe('10%');
        const fields = Array.from(root.querySelectorAll('.card-field')).map((f) => `${f.className}: ${f.textContent}`);
        expect(fields).toEqual(['card-field short: Hostdb-1', 'card-field short: Severitycritical', 'card-field: Runbookhttps://wiki.example/disk']);
        expect((root.querySelector('.card-image a') as HTMLAnchorElement).href).toBe('https://alerts.example/graph.png');
        expect(root.querySelector('.card-footer')?.textContent).toBe('alertmanager');
        expect(root.querySelector('.body')?.className).toBe('body');
        inert(root);
    });

    it('draws no bar colour but a hex one', () => {
        for (const color of ['red', 'url(https://x.example/a.png)', '#e40303; background: red', 'var(--x)']) {
            renderPage(document, root, {posts: [{id: 'p', author: 'a', time: '', message: '', permalink: '', message_attachments: [{color, title: 't'}]}]});
            expect((root.querySelector('.card-box') as HTMLElement).style.borderLeftColor, color).toBe('');
        }
    });

    it('marks an edited post "(edited)" at the end of its message and a pinned one "Pinned"', () => {
        renderPage(document, root, {posts: [
            {id: 'p1', author: '@alice', time: '2026-01-02T23:30:00Z', message: 'first line\nlast line', permalink: '', edited_at: '2026-01-03T08:00:00Z', pinned: true},
            {id: 'p2', author: '@bob', time: '2026-01-02T23:31:00Z', message: 'plain', permalink: ''},
        ]}, {timeZone: 'UTC'});
        const [edited, plain] = Array.from(root.querySelectorAll('.post'));
        expect(edited.querySelector('.body p')?.textContent).toBe('first linelast line (edited)');
        expect((edited.querySelector('.edited') as HTMLElement).title).toBe('Edited Jan 3, 2026, 8:00 AM');
        expect(edited.querySelector('.head .pinned')?.textContent).toContain('Pinned');
        expect(plain.querySelector('.edited,.pinned')).toBeNull();
    });

    it('quotes a post linked by permalink with its author, channel and time, the time linking to it', () => {
        renderPage(document, root, {posts: [{
            id: 'p2',
            author: '@bob',
            time: '2026-01-02T23:31:00Z',
            message: 'see https://mm.example/team/pl/p1',
            permalink: '',
            quoted_posts: [{id: 'p1',
                author: '@alice (Alice Liddell)',
                channel_name: '~launch',
                time: '2026-01-02T23:30:00Z',
                message: 'We ship on **Friday**',
                message_cut: true,
                files: ['plan.pdf'],
                more_files: 2,
                permalink: 'https://mm.example/team/pl/p1'}],
        }]}, {timeZone: 'UTC'});
        const q = root.querySelector('blockquote.quote') as HTMLElement;
        expect(q.querySelector('.author')?.textContent).toBe('@alice (Alice Liddell)');
        const when = q.querySelector('.time a') as HTMLAnchorElement;
        expect([when.textContent, when.href]).toEqual(['Jan 2, 2026, 11:30 PM', 'https://mm.example/team/pl/p1']);
        expect(q.querySelector('.quote-body strong')?.textContent).toBe('Friday');
        expect(q.querySelector('.quote-body .cut')).not.toBeNull();
        expect(q.querySelector('.quote-files')?.textContent).toBe('Files: plan.pdf and 2 more');
        expect(q.querySelector('.quote-channel')?.textContent).toBe('Originally posted in ~launch');
    });

    it('shows the rest of what a post carries: priority, acknowledgements, link preview, attribution, hidden characters, last reply', () => {
        renderPage(document, root, {posts: [{
            id: 'p1',
            author: '@alice',
            time: '2026-01-02T23:30:00Z',
            message: 'deploy',
            permalink: '',
            reply_count: 2,
            last_reply_at: '2026-01-03T01:00:00Z',
            priority: {level: 'urgent', acknowledgement_requested: true, acknowledged_by: ['@bob'], acknowledged_by_others: 1},
            link_preview: {url: 'https://example.com/a', title: 'A page', site: 'Example', description: 'About it', image: 'https://example.com/a.png'},
            mcp_attribution: 'Written by an AI assistant for @alice (MCP)',
            hidden_characters: 'This post held 1 character Mattermost does not display, now shown as [U+202E].',
        }]}, {timeZone: 'UTC'});
        expect(root.querySelector('.head .priority')?.textContent).toBe('Urgent');
        expect(root.querySelector('.acks')?.textContent).toBe('✓ Acknowledged by @bob and 1 other');
        expect((root.querySelector('.preview-title a') as HTMLAnchorElement).href).toBe('https://example.com/a');
        expect(root.querySelector('.preview')?.textContent).toContain('About it');
        expect(root.querySelector('.attribution')?.textContent).toBe('Written by an AI assistant for @alice (MCP)');
        expect(root.querySelector('.hidden-note')?.textContent).toContain('[U+202E]');
        expect(root.querySelector('.replies')?.textContent).toBe('2 replies · last reply Jan 3, 2026, 1:00 AM');
        inert(root);
    });

    it('renders author, time in the given time zone, markdown, files, reactions and the permalink', () => {
        renderPage(document, root, {
            channel: {display_name: 'Launch'},
            posts: [{
                id: 'p1',
                author: '@alice',
                time: '2026-01-02T23:30:00Z',
                message: 'we **ship** on `friday`, see https://example.com/plan',
                attachments: [{file_id: 'f', name: 'plan.pdf', type: 'application/pdf', size: 2048}],
                permalink: 'https://mm.example/team/pl/p1',
                reactions: [{emoji: 'tada', count: 3}],
                reply_count: 2,
            }],
        }, {timeZone: 'Europe/Berlin'});
        expect(root.querySelector('.channel')?.textContent).toBe('Launch');
        expect(root.querySelector('.author')?.textContent).toBe('@alice');
        expect(root.querySelector('a.time')?.getAttribute('href')).toBe('https://mm.example/team/pl/p1');
        expect(root.querySelector('a.time')?.textContent).toContain('Jan 3, 2026');
        expect(root.querySelector('strong')?.textContent).toBe('ship');
        expect(root.querySelector('code')?.textContent).toBe('friday');
        expect(root.querySelector('.body a')?.getAttribute('href')).toBe('https://example.com/plan');
        expect(root.querySelector('.files')?.textContent).toContain('plan.pdf');
        expect(root.querySelector('.files')?.textContent).toContain('2.0 KB');
        expect(root.querySelector('.reaction')?.textContent).toBe('🎉3');
        expect(root.querySelector('.replies')?.textContent).toBe('2 replies');
    });

    it('shows that no posts came rather than nothing when the result holds none', () => {
        renderPage(document, root, {posts: []});
        expect(root.textContent).toBe('No posts to show.');
        renderPage(document, root, 'not an object');
        expect(root.textContent).toBe('No posts to show.');
    });

    it('keeps only http and https links', () => {
        expect(safeHref(['javascript', 'alert(1)'].join(':'))).toBeNull();
        expect(safeHref('mailto:a@b.c')).toBeNull();
        expect(safeHref('https://a.example/x')).toBe('https://a.example/x');
    });

    it('shows an image in markdown as a link, never loading it', () => {
        const f = renderMarkdown(document, '![chart](https://evil.example/c.png)');
        root.appendChild(f);
        expect(root.querySelector('img')).toBeNull();
        expect(root.querySelector('a')?.textContent).toBe('chart');
    });

    it('falls back to the browser time zone when the host names one it does not know', () => {
        expect(formatTime('2026-01-02T03:04:05Z', {timeZone: 'Not/AZone'})).toMatch(/2026/);
    });
});

describe('the thread view of a channel and of a search', () => {
    it('shows a channel oldest first without naming the channel on each post, and names it on each found post', () => {
        document.body.innerHTML = '<main id="root"></main>';
        const root = document.getElementById('root') as HTMLElement;
        const post = (id: string, time: string, channel: string) => ({id, author: '@a', time, message: id, channel_name: channel, permalink: 'https://mm.example/t/pl/' + id});
        renderPage(document, root, {channel: {display_name: 'Town'}, posts: [post('new', '2026-01-02T00:00:00Z', 'town'), post('old', '2026-01-01T00:00:00Z', 'town')]});
        expect([...root.querySelectorAll('.body')].map((e) => e.textContent)).toEqual(['old', 'new']);
        expect(root.querySelector('.in')).toBeNull();
        renderPage(document, root, {posts: [post('b', '2026-01-02T00:00:00Z', 'town'), post('a', '2026-01-01T00:00:00Z', 'dev')]});
        expect([...root.querySelectorAll('.in')].map((e) => e.textContent)).toEqual(['~town', '~dev']);
    });
});

describe('the thumbnails of the thread view', () => {
    const page = (type: string) => ({posts: [{id: 'p',
        author: '@a',
        time: '2026-01-01T00:00:00Z',
        message: 'm',
        permalink: 'https://mm.example/t/pl/p',
        attachments: [{file_id: 'f1', name: 'a.png', type, size: 10}]}]});

    it('draws an image attachment from the data read_file gave, and nothing from data that is not base64 of an image', async () => {
        document.body.innerHTML = '<main id="root"></main>';
        const root = document.getElementById('root') as HTMLElement;
        const asked: string[] = [];
        renderPage(document, root, page('image/png'));
        await addThumbnails(document, root, {thumbnail: async (id) => {
            asked.push(id);
            return {mimeType: 'image/png', data: 'iVBORw0KGgo='};
        }});
        expect(asked).toEqual(['f1']);
        expect(root.querySelector('img.thumb')?.getAttribute('src')).toBe('data:image/png;base64,iVBORw0KGgo=');

        const bads = [{mimeType: 'image/svg+xml', data: 'PHN2Zz4='}, {mimeType: 'image/png', data: '" onerror="x'}, {mimeType: 'text/html', data: 'PGI+'}];
        await Promise.all(bads.map(async (bad) => {
            const into = document.createElement('main');
            renderPage(document, into, page('image/png'));
            await addThumbnails(document, into, {thumbnail: async () => bad});
            expect(into.querySelector('img')).toBeNull();
        }));
    });

    it('reads a thumbnail as the server\'s resource of the file and takes only a base64 blob of an image browsers draw', () => {
        expect(thumbnailURI('abc123')).toBe('mattermost://file/abc123/thumbnail');
        expect(thumbnailURI('a/b?c')).toBe('mattermost://file/a%2Fb%3Fc/thumbnail');
        const uri = 'mattermost://file/f1/thumbnail';
        expect(thumbnailOf({contents: [{uri, mimeType: 'image/jpeg', blob: '/9j/4AAQ'}]})).toEqual({mimeType: 'image/jpeg', data: '/9j/4AAQ'});
        for (const bad of [
            {contents: [{uri, mimeType: 'text/plain', text: 'not found'}]},
            {contents: [{uri, mimeType: 'image/svg+xml', blob: 'PHN2Zz4='}]},
            {contents: [{uri, mimeType: 'image/png', blob: '" onerror="x'}]},
            {contents: 'x'}, null, 'x',
        ]) {
            expect(thumbnailOf(bad)).toBeNull();
        }
    });

    it('asks for no thumbnail of a file that is not an image, nor of more than twenty-four', async () => {
        document.body.innerHTML = '<main id="root"></main>';
        const root = document.getElementById('root') as HTMLElement;
        let asked = 0;
        const thumbnail = async () => {
            asked++;
            return null;
        };
        renderPage(document, root, page('application/pdf'));
        await addThumbnails(document, root, {thumbnail});
        const many = {posts: [{...page('image/png').posts[0], attachments: Array.from({length: 30}, (_, i) => ({file_id: `f${i}`, name: `${i}.png`, type: 'image/png', size: 1}))}]};
        renderPage(document, root, many);
        await addThumbnails(document, root, {thumbnail});
        expect(asked).toBe(maxThumbnails);
    });
});

describe('the reactions of the thread view', () => {
    const withReactions = (reactions: NonNullable<PostPage['posts']>[0]['reactions'], more = {}) => ({posts: [{id: 'p',
        author: '@a',
        time: '2026-01-01T00:00:00Z',
        message: 'm',
        permalink: 'https://mm.example/t/pl/p',
        reactions,
        ...more}]});

    it('shows each emoji as Mattermost draws it with its count, and who reacted in the tooltip', () => {
        const root = document.createElement('main');
        renderPage(document, root, withReactions([
            {emoji: '+1', count: 7, users: ['@ann', '@bo (Bo Li)'], others: 5},
            {emoji: 'thumbsup_medium_skin_tone', count: 1, users: ['@ann'], others: 0},
            {emoji: 'party_parrot', count: 2, users: ['@ann', '@bo (Bo Li)'], others: 0},
        ], {more_emoji: 2, more_reactions: 3}));
        const chips = [...root.querySelectorAll<HTMLElement>('.reaction')];
        expect(chips.map((c) => c.textContent)).toEqual(['👍7', '👍🏽1', ':party_parrot:2', '+2 more']);
        expect(chips.map((c) => c.title).slice(0, 3)).toEqual([
            '@ann, @bo (Bo Li) and 5 others reacted with :+1:',
            '@ann reacted with :thumbsup_medium_skin_tone:',
            '@ann and @bo (Bo Li) reacted with :party_parrot:',
        ]);
        expect(chips[2].querySelector('.emoji.custom')).not.toBeNull();
        expect(root.querySelectorAll('img').length).toBe(0);
    });

    it('words the tooltip for one other, for people not named, and for nobody named', () => {
        expect(reactedWith({emoji: 'tada', count: 2, users: ['@ann'], others: 1}, 'tada', 2)).toBe('@ann and 1 other reacted with :tada:');
        expect(reactedWith({emoji: 'tada', count: 3, users: []}, 'tada', 3)).toBe('3 people reacted with :tada:');
        expect(reactedWith({emoji: 'tada', count: 0}, 'tada', 0)).toBe('Someone reacted with :tada:');
    });

    it('knows Mattermost\'s system emoji by name and no other', () => {
        expect(glyph('smile')).toBe('😄');
        expect(glyph('flag-fr')).toBe('🇫🇷');
        expect(glyph('wave_dark_skin_tone')).toBe('👋🏿');
        for (const name of ['party_parrot', '', 'constructor', '__proto__', 'smile_dark_skin_tone_x']) {
            expect(glyph(name)).toBe('');
        }
    });
});
