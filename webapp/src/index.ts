// Bundle entry: Mattermost loads dist/main.js and this registers the plugin.
import {PLUGIN_ID} from './manifest';
import {Plugin} from './plugin';

window.registerPlugin(PLUGIN_ID, new Plugin());
