// The file view renders read_file's answer; nothing a file name or an
// archive entry's name holds can run or load.
import {beforeEach, describe, expect, it} from 'vitest';

import {namePayloads as payloads} from './xss_payloads';

import {maxLines, renderFile, splitText} from '../src/views/files';

// inert: no element but the view's own, no handler, no link but http(s),
// no image but one given as data.
function inert(root: HTMLElement) {
    expect(root.querySelectorAll('script,svg,iframe,object,embed,style,link,meta,form,math,details,body,button,video,audio,source,input,marquee,base,template,noscript,x').length).toBe(0);
    for (const e of Array.from(root.querySelectorAll('*'))) {
        for (const a of Array.from(e.attributes)) {
            expect(a.name.startsWith('on'), `${e.tagName} ${a.name}`).toBe(false);
        }
    }
    for (const a of Array.from(root.querySelectorAll('a'))) {
        expect(a.getAttribute('href') ?? '').toMatch(/^https?:\/\/[^@]*$/);
    }
    for (const i of Array.from(root.querySelectorAll('img'))) {
        expect(i.getAttribute('src') ?? '').toMatch(/^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+=*$/);
    }
    expect((window as unknown as {pwned?: number}).pwned).toBeUndefined();
}

const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

describe('the file view', () => {
    let root: HTMLElement;
    beforeEach(() => {
        document.body.innerHTML = '<main id="root"></main>';
        root = document.getElementById('root') as HTMLElement;
    });

    it('shows an image read_file returned, at its size, with how it was turned and scaled', () => {
        renderFile(document, root, {name: 'photo.jpg',
            kind: 'image',
            size: 4000000,
            permalink: 'https://mm.example/t/pl/abc',
            image: {width: 1176, height: 1568, original_width: 4032, original_height: 3024, turned: true, scaled: true}},
        [{type: 'text', text: 'photo.jpg: JPEG image'}, {type: 'image', mimeType: 'image/jpeg', data: png}]);
        const img = root.querySelector('img') as HTMLImageElement;
        expect(img.getAttribute('src')).toBe(`data:image/jpeg;base64,${png}`);
        expect(img.width).toBe(1176);
        expect(root.textContent).toContain('scaled from 3024 × 4032');
        expect(root.textContent).toContain('turned upright');
        expect((root.querySelector('a') as HTMLAnchorElement).href).toBe('https://mm.example/t/pl/abc');
        inert(root);
    });

    it('shows no image whose type or data is not an image read_file gives', () => {
        for (const c of [{mimeType: 'image/svg+xml', data: png}, {mimeType: 'text/html', data: png}, {mimeType: 'image/png', data: 'x" onerror="window.pwned=1'}]) {
            renderFile(document, root, {name: 'x.png', kind: 'image'}, [{type: 'image', ...c}]);
            expect(root.querySelectorAll('img').length).toBe(0);
            inert(root);
        }
    });

    it('shows a window of text as numbered lines under its header, with where the next window starts', () => {
        const text = 'notes.pdf: PDF, lines 1-3 of 10\n\n 1\tPage one\n 2\t<script>window.pwned=1</script>\n 3\tthird';
        renderFile(document, root, {name: 'notes.pdf', kind: 'pdf', start: 1, end: 3, total_lines: 10, next_start: 4}, [{type: 'text', text}]);
        expect(root.querySelector('.about')?.textContent).toBe('notes.pdf: PDF, lines 1-3 of 10');
        expect(Array.from(root.querySelectorAll('.line .n')).map((n) => n.textContent)).toEqual(['1', '2', '3']);
        expect(root.querySelectorAll('.line .t')[1].textContent).toBe('<script>window.pwned=1</script>');
        expect(root.querySelector('.window')?.textContent).toBe('Text of the PDF: lines 1–3 of 10');
        expect(root.textContent).toContain('More from line 4');
        inert(root);
    });

    it('keeps thirty XSS payloads in file names and archive entry names as text', () => {
        const lines = payloads.map((p, i) => ` ${i + 1}\t${p}/evil\t${i} B`).join('\n');
        expect(payloads.length).toBe(30);
        for (const name of payloads) {
            renderFile(document, root, {name, kind: 'archive', size: 10, permalink: ['java', 'script:window.pwned=1'].join('')},
                [{type: 'text', text: `${name}: zip archive, ${payloads.length} entries\n\n${lines}`}]);
            expect(root.querySelector('.file-name')?.textContent).toBe(name);
            const entries = Array.from(root.querySelectorAll('.entries .entry')).map((e) => e.textContent);
            expect(entries).toEqual(payloads.map((p) => `${p}/evil`));
            expect(root.querySelectorAll('a').length).toBe(0);
            inert(root);
        }
    });

    it('shows at most the lines a window holds, and says so when nothing can be shown', () => {
        const many = Array.from({length: maxLines + 5}, (_, i) => `${i + 1}\tx`).join('\n');
        expect(splitText(`h\n\n${many}`).lines.length).toBe(maxLines);
        renderFile(document, root, null, []);
        expect(root.textContent).toContain('Nothing of this file can be shown here.');
    });
});
