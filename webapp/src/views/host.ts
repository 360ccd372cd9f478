// What every view takes from the host's context: its theme, and for the
// views that show times, the person's time zone and locale.

export type HostContext = {theme?: string; timeZone?: string; locale?: string};

export type TimeOptions = {timeZone?: string; locale?: string};

// applyHostContext sets the page's theme and, given opts, keeps the time
// zone and locale the host last named.
export function applyHostContext(ctx: HostContext | undefined, opts?: TimeOptions) {
    if (!ctx) {
        return;
    }
    if (ctx.theme === 'dark' || ctx.theme === 'light') {
        document.documentElement.dataset.theme = ctx.theme;
    }
    if (opts) {
        opts.timeZone = ctx.timeZone || opts.timeZone;
        opts.locale = ctx.locale || opts.locale;
    }
}
