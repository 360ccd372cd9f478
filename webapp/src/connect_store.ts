// The state of the "Connect an AI client" dialog, outside React so that the
// channel header button, the app bar and the /mcp hook can open it.
import {ApiError} from './api';
import {createToken, deauthorizeApp, disconnectClient, getOverview, type Disconnected, type MadeToken, type Overview} from './connect_api';

export interface ConnectState {
    open: boolean;
    overview: Overview | null;
    loading: boolean;

    // The token made in this dialog: shown once, gone when the dialog closes.
    token: MadeToken | null;
    busy: 'token' | `disconnect:${string}` | null;

    // The client whose Disconnect waits for the person's confirmation.
    confirming: string | null;

    // What the last Disconnect did, in a sentence.
    notice: string | null;
    error: string | null;
}

const closed: ConnectState = {open: false, overview: null, loading: false, token: null, busy: null, confirming: null, notice: null, error: null};

function message(err: unknown): string {
    return err instanceof ApiError || err instanceof Error ? err.message : String(err);
}

export class ConnectStore {
    private state: ConnectState = closed;
    private readonly listeners = new Set<() => void>();

    subscribe = (listener: () => void): (() => void) => {
        this.listeners.add(listener);
        return () => this.listeners.delete(listener);
    };

    getSnapshot = (): ConnectState => this.state;

    private set(patch: Partial<ConnectState>) {
        this.state = {...this.state, ...patch};
        this.listeners.forEach((l) => l());
    }

    open = async (): Promise<void> => {
        this.set({...closed, open: true, loading: true});
        await this.reload();
    };

    close = (): void => {
        this.set(closed);
    };

    private async reload(): Promise<void> {
        try {
            const overview = await getOverview();
            if (this.state.open) {
                this.set({overview, loading: false});
            }
        } catch (err) {
            this.set({loading: false, error: `The connection details could not be loaded: ${message(err)}`});
        }
    }

    makeToken = async (): Promise<void> => {
        this.set({busy: 'token', error: null});
        try {
            const token = await createToken();
            this.set({token, busy: null});
        } catch (err) {
            this.set({busy: null, error: `No token was made: ${message(err)}`});
        }
    };

    askDisconnect = (id: string | null): void => {
        this.set({confirming: id, notice: null, error: null});
    };

    disconnect = async (id: string): Promise<void> => {
        this.set({busy: `disconnect:${id}`, confirming: null, error: null, notice: null});
        let done: Disconnected;
        try {
            done = await disconnectClient(id);
        } catch (err) {
            this.set({busy: null, error: `The client was not disconnected: ${message(err)}`});
            await this.reload();
            return;
        }
        let notice = `${done.client.name} is disconnected.`;
        if (done.oauth_app_id) {
            try {
                await deauthorizeApp(done.oauth_app_id);
                notice += ' Its OAuth access is withdrawn: to connect it again, you will be asked to allow it.';
            } catch (err) {
                notice += ` Its OAuth access could not be withdrawn (${message(err)}): it can sign in again until its access is removed; ask a system admin.`;
            }
        }
        if (done.note) {
            notice += ` ${done.note}`;
        }
        const overview = this.state.overview;
        this.set({busy: null, notice, overview: overview && {...overview, clients: overview.clients.filter((c) => c.id !== id)}});
        await this.reload();
    };
}
