import {afterEach, describe, expect, it, vi} from 'vitest';

import {pendingEvent} from './fake_registry';
import {BASE, deferred, detail, fakeServer, ID} from './fake_server';

import {ConfirmationStore, parsePendingConfirmations} from '../src/confirmation_store';

const OTHER = 'fedcba9876543210fedcba9876543210';

afterEach(() => vi.unstubAllGlobals());

describe('parsePendingConfirmations', () => {
    it('drops entries without a string id and gives untitled ones a default title', () => {
        expect(parsePendingConfirmations({
            confirmations: [{id: 'a', title: 'A'}, {title: 'no id'}, {id: 5}, null, 'x', {id: 'b'}],
        })).toEqual([{id: 'a', title: 'A'}, {id: 'b', title: 'Pending confirmation'}]);
    });

    it('returns an empty list for data of the wrong shape or broken JSON', () => {
        expect(parsePendingConfirmations(undefined)).toEqual([]);
        expect(parsePendingConfirmations({})).toEqual([]);
        expect(parsePendingConfirmations({confirmations: {id: 'a'}})).toEqual([]);
        expect(parsePendingConfirmations({confirmations: '[{"id":'})).toEqual([]);
    });
});

describe('ConfirmationStore', () => {
    it('returns the same snapshot object until something changes, and tells subscribers until they unsubscribe', () => {
        fakeServer({});
        const store = new ConfirmationStore();
        const listener = vi.fn();
        const unsubscribe = store.subscribe(listener);
        const before = store.getSnapshot();
        expect(store.getSnapshot()).toBe(before);

        store.handlePendingEvent(pendingEvent({confirmations: [{id: ID, title: 'A'}]}));
        expect(listener).toHaveBeenCalledTimes(1);
        expect(store.getSnapshot()).not.toBe(before);
        expect(store.getSnapshot().modal).toMatchObject({id: ID, title: 'A', busy: 'loading'});

        unsubscribe();
        store.close();
        expect(listener).toHaveBeenCalledTimes(1);
    });

    it('ignores a detail that arrives after the modal moved on to another confirmation', async () => {
        const late = deferred();
        fakeServer({
            [`GET ${BASE}/${ID}`]: late.route,
            [`GET ${BASE}/${OTHER}`]: {body: detail({id: OTHER, title: 'Other'})},
        });
        const store = new ConfirmationStore();
        store.open(ID);
        store.open(OTHER);
        await vi.waitFor(() => expect(store.getSnapshot().modal?.detail?.title).toBe('Other'));

        late.release({body: detail({title: 'Stale'})});
        await new Promise((resolve) => setTimeout(resolve, 0));

        expect(store.getSnapshot().modal?.detail?.title).toBe('Other');
    });

    it('fetches the list on events only while the sidebar watches it', async () => {
        const {calls} = fakeServer({[`GET ${BASE}`]: {body: {confirmations: []}}});
        const store = new ConfirmationStore();

        store.handlePendingEvent(pendingEvent({confirmations: []}));
        expect(calls()).toEqual([]);

        const unwatch = store.watchList();
        store.handlePendingEvent(pendingEvent({confirmations: []}));
        unwatch();
        store.handlePendingEvent(pendingEvent({confirmations: []}));

        expect(calls()).toEqual([`GET ${BASE}`, `GET ${BASE}`]);
    });
});
