// Must match "id" in the repository's plugin.json.
export const PLUGIN_ID = 'mcp-server';

// Mattermost prefixes events published by a plugin with `custom_<plugin id>_`.
export const PENDING_CONFIRMATION_EVENT = `custom_${PLUGIN_ID}_pending_confirmation`;

export function confirmationUrl(id: string): string {
    return `/plugins/${PLUGIN_ID}/confirm/${encodeURIComponent(id)}`;
}
