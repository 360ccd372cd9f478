// The pending write view shows a write that waits from its result; nothing
// a message, a file name or a channel name holds can run, load or link,
// and its one link is the confirmation page of the plugin itself.
import {beforeEach, describe, expect, it} from 'vitest';

import {payloads} from './xss_payloads';

import {confirmationHref, pendingOf, previewMetaKey, renderPending} from '../src/views/pending_render';

const page = 'https://mm.example/plugins/mcp-server/confirm/abc123';

function inert(root: HTMLElement) {
    expect(root.querySelectorAll('script,img,svg,iframe,object,embed,style,link,meta,form,math,details,body').length).toBe(0);
    for (const e of Array.from(root.querySelectorAll('*'))) {
        for (const a of Array.from(e.attributes)) {
            expect(a.name.startsWith('on'), `${e.tagName} ${a.name}`).toBe(false);
        }
    }
    const links = Array.from(root.querySelectorAll('a')).map((a) => a.getAttribute('href'));
    expect(links).toEqual([page]);
    expect((window as unknown as {pwned?: number}).pwned).toBeUndefined();
}

function waiting(p: string) {
    return pendingOf({state: 'pending', id: 'abc123', url: page}, {[previewMetaKey]: {
        place: p, message: p, notes: [p], files: [{name: p, size: 10, type: p}], expires_at: '2026-01-02T03:14:05Z',
    }});
}

describe('the pending write view', () => {
    let root: HTMLElement;
    beforeEach(() => {
        document.body.innerHTML = '<main id="root"></main>';
        root = document.getElementById('root') as HTMLElement;
    });

    it('has thirty XSS payloads to try', () => {
        expect(payloads.length).toBe(30);
    });

    for (const [i, p] of payloads.entries()) {
        it(`keeps payload ${i + 1} inert in the message, the channel name and a file name`, () => {
            document.body.innerHTML = '<main id="one"></main>';
            const one = document.getElementById('one') as HTMLElement;
            renderPending(document, one, waiting(p)!);
            inert(one);
            expect(one.querySelector('.where strong')?.textContent).toBe(p);
            expect(one.querySelector('.files .name')?.textContent).toBe(p);
        });
    }

    it('heads the notes only in the server\'s words, as the page heads them', () => {
        const pin = pendingOf({state: 'pending', id: 'p1', url: page}, {[previewMetaKey]: {notes: ['Everyone in the channel sees it'], notes_heading: 'Who sees it'}})!;
        renderPending(document, root, pin);
        expect(Array.from(root.querySelectorAll('.label')).map((e) => e.textContent)).toContain('Who sees it');
        expect(root.textContent).not.toContain('Who is notified');
        const bare = pendingOf({state: 'pending', id: 'p2', url: page}, {[previewMetaKey]: {notes: ['Everyone in the channel sees it']}})!;
        renderPending(document, root, bare);
        expect(root.querySelector('.notes')?.textContent).toBe('Everyone in the channel sees it');
        expect(root.textContent).not.toContain('Who is notified');
    });

    it('shows where it goes, who is notified, the message, every file, until when, and the one action', () => {
        const p = pendingOf({state: 'pending', id: 'abc123', url: page}, {[previewMetaKey]: {
            place: 'Town Square, Harbour',
            message: 'we **ship** friday, see https://example.com/plan',
            notes: ['Everyone in the channel who follows it'],
            notes_heading: 'Who is notified',
            files: [{name: 'plan.pdf', size: 2048, type: 'application/pdf'}, {name: 'b.txt', size: 3, type: 'text/plain'}],
            expires_at: '2026-01-02T23:30:00Z',
        }})!;
        renderPending(document, root, p, {timeZone: 'Europe/Berlin'});
        expect(root.querySelector('.state')?.textContent).toBe('Waiting for you in Mattermost');
        expect(root.querySelector('.where')?.textContent).toBe('To Town Square, Harbour');
        expect(root.querySelector('.notes')?.textContent).toBe('Everyone in the channel who follows it');
        expect(Array.from(root.querySelectorAll('.label')).map((e) => e.textContent)).toContain('Who is notified');
        expect(root.querySelector('.post strong')?.textContent).toBe('ship');
        expect(root.querySelector('figure.ai > figcaption')?.textContent).toBe('Written by the AI: it is posted exactly as shown');
        expect(root.querySelector('figure.ai .post')).not.toBeNull();
        expect(root.querySelector('.post .link')?.getAttribute('title')).toBe('https://example.com/plan');
        expect(Array.from(root.querySelectorAll('.files .name')).map((e) => e.textContent)).toEqual(['plan.pdf', 'b.txt']);
        expect(root.querySelector('.files')?.textContent).toContain('2.0 KB');
        expect(root.querySelector('.time')?.textContent).toContain('Jan 3, 2026');
        const a = root.querySelector('a.open');
        expect(a?.textContent).toBe('Open in Mattermost to answer');
        expect(a?.getAttribute('href')).toBe(page);
        expect(root.querySelectorAll('a,button').length).toBe(1);
    });

    it('shows the outcome once answered, keeping the preview, and drops the action', () => {
        const first = pendingOf({state: 'pending', id: 'abc123', url: page}, {[previewMetaKey]: {place: 'Town Square', message: 'hi'}})!;
        const later = pendingOf({pending: [{state: 'posted', id: 'abc123', permalink: 'https://mm.example/t/pl/p'}]}, undefined, first)!;
        renderPending(document, root, later);
        expect(root.querySelector('.state')?.textContent).toBe('posted');
        expect(root.querySelector('.where')?.textContent).toBe('To Town Square');
        expect(root.querySelector('a')).toBeNull();
    });

    it('keeps the confirmation link only for the plugin\'s confirmation page over http(s)', () => {
        expect(confirmationHref(page)).toBe(page);
        expect(confirmationHref('https://mm.example/sub/plugins/mcp-server/confirm/x')).toBe('https://mm.example/sub/plugins/mcp-server/confirm/x');
        expect(confirmationHref('https://evil.example/phish')).toBeNull();
        expect(confirmationHref(['javascript', 'alert(1)//plugins/x/confirm'].join(':'))).toBeNull();
        expect(confirmationHref(42)).toBeNull();
    });

    it('shows nothing for a result that is not a write', () => {
        expect(pendingOf('nope', undefined)).toBeNull();
        expect(pendingOf({pending: []}, undefined)).toBeNull();
    });
});
