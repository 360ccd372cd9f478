import {readFileSync} from 'node:fs';
import {join} from 'node:path';

import {describe, expect, it} from 'vitest';

import {API_BASE, PENDING_CONFIRMATION_EVENT, PLUGIN_ID} from '../src/manifest';

const pluginJSON = JSON.parse(readFileSync(join(__dirname, '..', '..', 'plugin.json'), 'utf8')) as {id: string};

describe('the plugin id', () => {
    it('is the one plugin.json names, in every route and event the webapp uses', () => {
        expect(PLUGIN_ID).toBe(pluginJSON.id);
        expect(API_BASE).toBe(`/plugins/${pluginJSON.id}/api/v1`);
        expect(PENDING_CONFIRMATION_EVENT).toBe(`custom_${pluginJSON.id}_pending_confirmation`);
    });
});
