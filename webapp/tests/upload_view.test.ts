// The upload view shows what the assistant asked for as inert text, takes
// one file, sends it only to the request's drop URL on the plugin, and
// says what became of it: the sha256 once given, the refusal otherwise.
import {beforeEach, describe, expect, it} from 'vitest';

import {payloads} from './xss_payloads';

import {dropHref, renderUpload, requestMetaKey, requestOf, type Sender} from '../src/views/upload_render';

const drop = `https://mm.example/plugins/mcp-server/drop/${'a'.repeat(26)}/${'0'.repeat(32)}/${'f'.repeat(64)}`;

function waiting(purpose: string, maxSize = 1024) {
    return requestOf({id: '0'.repeat(32), state: 'waiting', page_url: 'https://mm.example/plugins/mcp-server/upload/x', expires_at: '2026-01-02T03:14:05Z'},
        {[requestMetaKey]: {purpose, types: ['.pdf'], types_text: 'PDF (.pdf)', max_size: maxSize, drop_url: drop}})!;
}

function pick(root: HTMLElement, file: File) {
    const input = root.querySelector('input[type=file]') as HTMLInputElement;
    Object.defineProperty(input, 'files', {value: [file], configurable: true});
    input.dispatchEvent(new Event('change'));
}

async function settled(root: HTMLElement) {
    for (let i = 0; i < 50 && !root.querySelector('.result [role=status], .result .given'); i++) {
        await new Promise((r) => setTimeout(r, 0)); // eslint-disable-line no-await-in-loop -- one turn at a time
    }
}

describe('the upload view', () => {
    let root: HTMLElement;
    beforeEach(() => {
        document.body.innerHTML = '<main id="root"></main>';
        root = document.getElementById('root') as HTMLElement;
    });

    for (const [i, p] of payloads.entries()) {
        it(`keeps payload ${i + 1} inert where the assistant says what the file is for`, () => {
            document.body.innerHTML = '<main id="one"></main>';
            const one = document.getElementById('one') as HTMLElement;
            renderUpload(document, one, waiting(p));
            expect(one.querySelectorAll('script,img,svg,iframe,object,embed,style,link,meta,form,a').length).toBe(0);
            for (const e of Array.from(one.querySelectorAll('*'))) {
                expect(Array.from(e.attributes).some((a) => a.name.startsWith('on'))).toBe(false);
            }
            expect(one.querySelector('.purpose')?.textContent).toBe(p);
            expect((window as unknown as {pwned?: number}).pwned).toBeUndefined();
        });
    }

    it('takes the drop URL only on a plugin\'s drop route over http(s)', () => {
        expect(dropHref(drop)).toBe(drop);
        for (const bad of ['javascript:alert(1)', // eslint-disable-line no-script-url -- refused, never run
            'https://evil.example/upload', drop.replace('/drop/', '/files/'), `${drop}/x`, 'data:text/plain,hi']) {
            expect(dropHref(bad), bad).toBeNull();
        }
    });

    it('sends the chosen file to the drop URL and shows its sha256 once the plugin took it', async () => {
        const sent: string[] = [];
        const send: Sender = async (url, file, progress) => {
            sent.push(`${url} ${file.name}`);
            progress(0.5);
            return {status: 201, outcome: {state: 'received', message: 'Done: the assistant has your file.', name: file.name, size: file.size, type: 'application/pdf', sha256: 'ab'.repeat(32)}};
        };
        renderUpload(document, root, waiting('the slides'), {}, send);
        expect(root.querySelector('.types')?.textContent).toBe('PDF (.pdf)');
        expect((root.querySelector('input[type=file]') as HTMLInputElement).accept).toBe('.pdf');
        pick(root, new File(['%PDF-1.7'], 'deck.pdf', {type: 'application/pdf'}));
        await settled(root);
        expect(sent).toEqual([`${drop} deck.pdf`]);
        expect(root.querySelector('.given .state')?.textContent).toBe('Done');
        expect(root.querySelector('.given .sha256 code')?.textContent).toBe('ab'.repeat(32));
        expect(root.querySelector('.drop')).toBeNull();
    });

    it('refuses a file over the size asked for without sending it, and says what to do', async () => {
        let calls = 0;
        const send: Sender = async () => {
            calls++;
            return {status: 201, outcome: {}};
        };
        renderUpload(document, root, waiting('x', 4), {}, send);
        pick(root, new File(['12345678'], 'big.pdf'));
        await settled(root);
        expect(calls).toBe(0);
        expect(root.querySelector('.result')?.textContent).toContain('Choose a smaller file');
    });

    it('shows the plugin\'s refusal and keeps the drop zone for another try', async () => {
        const send: Sender = async () => ({status: 415, outcome: {state: 'waiting', message: 'The assistant asked for PDF (.pdf), and "a.txt" is not one; nothing was stored. Choose a file of that type.'}});
        renderUpload(document, root, waiting('x'), {}, send);
        pick(root, new File(['hi'], 'a.txt'));
        await settled(root);
        expect(root.querySelector('.result .state-refused')?.textContent).toContain('nothing was stored');
        expect(root.querySelector('.drop')).not.toBeNull();
    });

    it('shows a received request as done and a withdrawn one as withdrawn, with no drop zone', () => {
        renderUpload(document, root, requestOf({state: 'received', file: {name: 'deck.pdf', size: 2048, type: 'application/pdf', sha256: 'cd'.repeat(32)}}, {[requestMetaKey]: {purpose: 'p'}})!);
        expect(root.querySelector('.given .name')?.textContent).toBe('deck.pdf');
        expect(root.querySelector('.drop')).toBeNull();
        renderUpload(document, root, requestOf({state: 'cancelled'}, {[requestMetaKey]: {purpose: 'p', drop_url: drop}})!);
        expect(root.textContent).toContain('withdrew');
        expect(root.querySelector('.drop')).toBeNull();
    });
});
