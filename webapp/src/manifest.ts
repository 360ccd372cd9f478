// The plugin id is read from the repository's plugin.json when the bundle is
// built: that file is its one home.
import {id} from '../../plugin.json';

export const PLUGIN_ID: string = id;

// Mattermost prefixes events published by a plugin with `custom_<plugin id>_`.
export const PENDING_CONFIRMATION_EVENT = `custom_${PLUGIN_ID}_pending_confirmation`;
export const CONFIRMATION_ANSWERED_EVENT = `custom_${PLUGIN_ID}_confirmation_answered`;

export const API_BASE = `/plugins/${PLUGIN_ID}/api/v1`;
