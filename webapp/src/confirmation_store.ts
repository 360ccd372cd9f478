// State of the confirmation modal and the sidebar list, shaped for React's
// useSyncExternalStore: the snapshot is replaced on every change, never mutated.
import {answerConfirmation, ApiError, getConfirmation, listConfirmations, type Answer, type ConfirmationDetail} from './api';
import type {WebSocketMessage} from './mattermost';

export interface PendingConfirmation {
    id: string;
    title: string;
}

export interface ModalError {
    message: string;

    // The server no longer has it for this person (404): retrying cannot help.
    gone: boolean;
}

export interface ModalState {
    id: string;

    // From the websocket event, shown until the detail arrives.
    title: string;
    detail: ConfirmationDetail | null;
    busy: 'loading' | Answer | null;

    // This tab sent the answer, so the answered event that follows must not close it.
    answeredHere: boolean;
    error: ModalError | null;
}

export interface ListState {
    items: readonly ConfirmationDetail[];
    loading: boolean;
    error: string | null;
}

export interface Snapshot {
    modal: ModalState | null;
    list: ListState;
}

const DEFAULT_TITLE = 'Pending confirmation';

// `{confirmations: [{id, title}, ...]}`; `confirmations` may also be a JSON string,
// since the Go side often encodes nested values that way before publishing.
// Entries without a string id are dropped.
export function parsePendingConfirmations(data: unknown): PendingConfirmation[] {
    if (!data || typeof data !== 'object') {
        return [];
    }
    let list: unknown = (data as Record<string, unknown>).confirmations;
    if (typeof list === 'string') {
        try {
            list = JSON.parse(list);
        } catch {
            return [];
        }
    }
    if (!Array.isArray(list)) {
        return [];
    }
    const result: PendingConfirmation[] = [];
    for (const item of list) {
        if (!item || typeof item !== 'object') {
            continue;
        }
        const {id, title} = item as Record<string, unknown>;
        if (typeof id !== 'string' || id === '') {
            continue;
        }
        result.push({id, title: typeof title === 'string' && title !== '' ? title : DEFAULT_TITLE});
    }
    return result;
}

export function describeError(err: unknown): ModalError {
    if (err instanceof ApiError && err.status === 404) {
        return {
            message: 'This confirmation was not found: it may have expired or been answered elsewhere. Ask the assistant again.',
            gone: true,
        };
    }
    if (err instanceof ApiError && err.status === 401) {
        return {message: 'Your Mattermost session has ended. Sign in again, then try once more.', gone: false};
    }
    if (err instanceof ApiError && err.status === 0) {
        return {message: `Could not reach Mattermost (${err.message}). Check your connection and try again.`, gone: false};
    }
    const text = err instanceof Error ? err.message : String(err);
    return {message: `Something went wrong: ${text}. Try again, or ask the assistant again.`, gone: false};
}

const INITIAL: Snapshot = Object.freeze({
    modal: null,
    list: Object.freeze({items: Object.freeze([]), loading: false, error: null}),
});

type Listener = () => void;

export class ConfirmationStore {
    private snapshot: Snapshot = INITIAL;
    private readonly listeners = new Set<Listener>();

    // Confirmations announced while the modal showed another one. Switching what the
    // open dialog shows under the person's pointer could get the wrong post accepted.
    private queue: PendingConfirmation[] = [];
    private listWatchers = 0;
    private listRequest = 0;

    subscribe = (listener: Listener): (() => void) => {
        this.listeners.add(listener);
        return () => {
            this.listeners.delete(listener);
        };
    };

    getSnapshot = (): Snapshot => this.snapshot;

    handlePendingEvent = (msg: WebSocketMessage): void => {
        for (const c of parsePendingConfirmations(msg.data)) {
            const modal = this.snapshot.modal;
            if (!modal) {
                this.open(c.id, c.title);
            } else if (modal.id !== c.id && !this.queue.some((q) => q.id === c.id)) {
                this.queue.push(c);
            }
        }
        this.refreshIfWatched();
    };

    handleAnsweredEvent = (msg: WebSocketMessage): void => {
        const id = msg.data?.id;
        if (typeof id === 'string') {
            this.queue = this.queue.filter((q) => q.id !== id);
            const modal = this.snapshot.modal;
            if (modal?.id === id && !modal.answeredHere) {
                if (msg.data?.state === 'withdrawn') {
                    // The person may be reading it: say that the assistant took it
                    // back rather than make it vanish.
                    this.open(id, modal.title);
                } else {
                    this.close();
                }
            }
        }
        this.refreshIfWatched();
    };

    open = (id: string, title = ''): void => {
        this.queue = this.queue.filter((q) => q.id !== id);
        this.setModal({id, title, detail: null, busy: 'loading', answeredHere: false, error: null});
        getConfirmation(id).then(
            (detail) => this.updateModal(id, {detail, busy: null}),
            (err) => this.updateModal(id, {busy: null, error: describeError(err)}),
        );
    };

    // Closing never answers: the confirmation stays pending on the server.
    close = (): void => {
        const next = this.queue.shift();
        if (next) {
            this.open(next.id, next.title);
        } else {
            this.setModal(null);
        }
    };

    answer = async (answer: Answer): Promise<void> => {
        const modal = this.snapshot.modal;
        if (!modal || modal.busy || modal.detail?.state !== 'pending') {
            return;
        }
        const {id} = modal;
        this.updateModal(id, {busy: answer, answeredHere: true, error: null});
        try {
            const detail = await answerConfirmation(id, answer);
            this.updateModal(id, {detail, busy: null});
        } catch (err) {
            this.updateModal(id, {busy: null, error: describeError(err)});
        }
        this.refreshIfWatched();
    };

    // The sidebar calls this while mounted, so events refresh the list only when
    // someone can see it.
    watchList = (): (() => void) => {
        this.listWatchers++;

        // Not awaited: refreshList catches its own errors into the list state.
        this.refreshList();
        return () => {
            this.listWatchers--;
        };
    };

    refreshList = async (): Promise<void> => {
        const request = ++this.listRequest;
        this.setList({loading: true});
        try {
            const items = await listConfirmations();
            if (request === this.listRequest) {
                this.setList({items, loading: false, error: null});
            }
        } catch (err) {
            if (request === this.listRequest) {
                // A 404 here is the plugin's API missing, not an expired confirmation.
                const {message, gone} = describeError(err);
                this.setList({loading: false, error: gone ? 'Could not load your confirmations (HTTP 404). Is the plugin up to date?' : message});
            }
        }
    };

    reset(): void {
        this.queue = [];
        this.listRequest++;
        this.snapshot = INITIAL;
        this.emit();
    }

    private refreshIfWatched(): void {
        if (this.listWatchers > 0) {
            this.refreshList();
        }
    }

    // Answers for a confirmation the modal no longer shows are dropped.
    private updateModal(id: string, change: Partial<ModalState>): void {
        const modal = this.snapshot.modal;
        if (modal?.id === id) {
            this.setModal({...modal, ...change});
        }
    }

    private setModal(modal: ModalState | null): void {
        this.snapshot = {...this.snapshot, modal};
        this.emit();
    }

    private setList(change: Partial<ListState>): void {
        this.snapshot = {...this.snapshot, list: {...this.snapshot.list, ...change}};
        this.emit();
    }

    private emit(): void {
        this.listeners.forEach((listener) => listener());
    }
}
