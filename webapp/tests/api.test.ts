import {afterEach, describe, expect, it, vi} from 'vitest';

import {BASE, detail, fakeServer, ID} from './fake_server';

import {answerConfirmation, ApiError, csrfToken, getConfirmation, listConfirmations, sitePath} from '../src/api';

afterEach(() => {
    vi.unstubAllGlobals();
    delete window.basename;
    document.cookie = 'MMCSRF=; expires=Thu, 01 Jan 1970 00:00:00 GMT';
});

describe('the confirmation API client', () => {
    it('sends X-Requested-With and the session cookie on a GET, but no CSRF token', async () => {
        const {fetchMock} = fakeServer({[`GET ${BASE}/${ID}`]: {body: detail()}});

        await getConfirmation(ID);

        const init = fetchMock.mock.calls[0][1]!;
        expect(init.credentials).toBe('include');
        expect(init.headers).toMatchObject({'X-Requested-With': 'XMLHttpRequest'});
        expect(init.headers).not.toHaveProperty('X-CSRF-Token');
    });

    it('reads the CSRF token from the MMCSRF cookie among others', async () => {
        document.cookie = 'other=1';
        document.cookie = 'MMCSRF=abc%3Ddef';
        expect(csrfToken()).toBe('abc=def');

        const {fetchMock} = fakeServer({[`POST ${BASE}/${ID}/decline`]: {body: detail({state: 'declined'})}});
        await answerConfirmation(ID, 'decline');
        expect(fetchMock.mock.calls[0][1]!.headers).toMatchObject({'X-CSRF-Token': 'abc=def'});
    });

    it('puts the site\'s subpath in front of server paths when Mattermost runs under one', async () => {
        window.basename = '/chat';
        const {calls} = fakeServer({[`GET /chat${BASE}`]: {body: {confirmations: []}}});

        await listConfirmations();

        expect(calls()).toEqual([`GET /chat${BASE}`]);
        expect(sitePath('/plugins/mcp-server/confirm/x')).toBe('/chat/plugins/mcp-server/confirm/x');
        expect(sitePath('https://example.com/a')).toBe('https://example.com/a');
    });

    it('turns Go\'s null lists into empty arrays', async () => {
        fakeServer({[`GET ${BASE}/${ID}`]: {body: {...detail(), notes: null, files: null}}});

        const d = await getConfirmation(ID);

        expect(d.notes).toEqual([]);
        expect(d.files).toEqual([]);
    });

    it('rejects with the HTTP status and the server\'s error text, or status 0 when the network fails', async () => {
        fakeServer({
            [`GET ${BASE}/${ID}`]: {status: 404, body: {error: 'confirmation not found'}},
            [`POST ${BASE}/${ID}/accept`]: new TypeError('Failed to fetch'),
        });

        await expect(getConfirmation(ID)).rejects.toEqual(new ApiError(404, 'confirmation not found'));
        await expect(getConfirmation(ID)).rejects.toMatchObject({status: 404});
        await expect(answerConfirmation(ID, 'accept')).rejects.toMatchObject({status: 0, message: 'Failed to fetch'});
    });
});
