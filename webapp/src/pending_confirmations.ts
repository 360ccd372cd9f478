import type {WebSocketMessage} from './mattermost';

export interface PendingConfirmation {
    id: string;
    title: string;
}

const DEFAULT_TITLE = 'Pending confirmation';

// The event's data is a snapshot of the person's pending confirmations:
// `{confirmations: [{id, title}, ...]}`. `confirmations` may also be a JSON string,
// since the Go side often encodes nested values that way before publishing.
// Entries without a string id are dropped; an empty list clears the panel.
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

type Listener = () => void;

const EMPTY: readonly PendingConfirmation[] = Object.freeze([]);

// Holds the latest pending-confirmation event. One instance per Plugin, shaped for
// React's useSyncExternalStore: the snapshot is replaced, never mutated.
export class PendingConfirmationStore {
    private confirmations: readonly PendingConfirmation[] = EMPTY;
    private latest: unknown = null;
    private readonly listeners = new Set<Listener>();

    // Arrow functions so they can be passed around unbound.
    handleEvent = (msg: WebSocketMessage): void => {
        this.latest = msg.data;
        this.set(parsePendingConfirmations(msg.data));
    };

    subscribe = (listener: Listener): (() => void) => {
        this.listeners.add(listener);
        return () => {
            this.listeners.delete(listener);
        };
    };

    getSnapshot = (): readonly PendingConfirmation[] => this.confirmations;

    // The raw data of the last event received, or null.
    get latestPayload(): unknown {
        return this.latest;
    }

    clear(): void {
        this.latest = null;
        this.set(EMPTY);
    }

    private set(next: readonly PendingConfirmation[]): void {
        this.confirmations = next.length === 0 ? EMPTY : Object.freeze(next);
        this.listeners.forEach((listener) => listener());
    }
}
