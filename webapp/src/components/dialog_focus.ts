import {useEffect, useRef} from 'react';

// useDialogFocus is how every dialog of the plugin holds the keyboard: the
// dialog itself takes focus (never a button: a keystroke meant for the
// message box must not answer anything) and gives it back when it closes,
// and Escape closes it, in the capture phase so that Mattermost's own Escape
// handling (closing the sidebar, marking the channel read) does not run too.
export function useDialogFocus<T extends HTMLElement>(close: () => void) {
    const ref = useRef<T>(null);
    useEffect(() => {
        const previous = document.activeElement as HTMLElement | null;
        ref.current?.focus();
        return () => previous?.focus?.();
    }, []);
    useEffect(() => {
        const onKey = (e: KeyboardEvent) => {
            if (e.key === 'Escape') {
                e.stopPropagation();
                e.preventDefault();
                close();
            }
        };
        document.addEventListener('keydown', onKey, true);
        return () => document.removeEventListener('keydown', onKey, true);
    }, [close]);
    return ref;
}
