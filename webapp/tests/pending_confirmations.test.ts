import {describe, expect, it, vi} from 'vitest';

import {parsePendingConfirmations, PendingConfirmationStore} from '../src/pending_confirmations';

import {pendingEvent} from './fake_registry';

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

describe('PendingConfirmationStore', () => {
    it('keeps the latest event payload and tells subscribers until they unsubscribe', () => {
        const store = new PendingConfirmationStore();
        const listener = vi.fn();
        const unsubscribe = store.subscribe(listener);
        const data = {confirmations: [{id: 'a', title: 'A'}]};

        store.handleEvent(pendingEvent(data));
        expect(listener).toHaveBeenCalledTimes(1);
        expect(store.latestPayload).toBe(data);
        expect(store.getSnapshot()).toEqual([{id: 'a', title: 'A'}]);

        unsubscribe();
        store.handleEvent(pendingEvent({confirmations: []}));
        expect(listener).toHaveBeenCalledTimes(1);
    });

    it('returns the same snapshot object until something changes', () => {
        const store = new PendingConfirmationStore();
        expect(store.getSnapshot()).toBe(store.getSnapshot());
        const before = store.getSnapshot();
        store.handleEvent(pendingEvent({confirmations: [{id: 'a', title: 'A'}]}));
        expect(store.getSnapshot()).not.toBe(before);
        expect(store.getSnapshot()).toBe(store.getSnapshot());
    });
});
