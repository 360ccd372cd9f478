// The thread view renders posts from a tool's structured result; nothing a
// post, a file name or a channel name holds can run or load.
import {beforeEach, describe, expect, it} from 'vitest';

import {payloads} from './xss_payloads';

import {renderMarkdown, safeHref} from '../src/views/markdown';
import {addThumbnails, formatTime, maxThumbnails, renderPage, type PostPage} from '../src/views/posts';

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
                    reactions: [{emoji: p, count: 1}],
                }],
            };
            renderPage(document, into, page);
            inert(into);
            expect(into.querySelector('.author')?.textContent).toBe(p);
            expect(into.querySelector('.files .name')?.textContent).toBe(p);
            expect(into.querySelector('.channel')?.textContent).toBe(p);
        });
    }

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
        expect(root.querySelector('.reaction')?.textContent).toBe(':tada: 3');
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

    it('asks for no thumbnail of a file that is not an image, nor of more than eight', async () => {
        document.body.innerHTML = '<main id="root"></main>';
        const root = document.getElementById('root') as HTMLElement;
        let asked = 0;
        const thumbnail = async () => {
            asked++;
            return null;
        };
        renderPage(document, root, page('application/pdf'));
        await addThumbnails(document, root, {thumbnail});
        const many = {posts: [{...page('image/png').posts[0], attachments: Array.from({length: 12}, (_, i) => ({file_id: `f${i}`, name: `${i}.png`, type: 'image/png', size: 1}))}]};
        renderPage(document, root, many);
        await addThumbnails(document, root, {thumbnail});
        expect(asked).toBe(maxThumbnails);
    });
});
