import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderSettingsPage, SETTINGS_PAGE } from '../../scripts/settings-doc';
import { Config } from '../../src/config';

describe('docs/settings.md', () => {
  it('is what src/config.ts generates (npm run docs:settings rewrites it)', () => {
    expect(readFileSync(SETTINGS_PAGE, 'utf8')).toBe(renderSettingsPage());
  });

  it('names every setting once, with its default', () => {
    const page = renderSettingsPage();
    for (const name of Object.keys(Config.shape)) expect(page.match(new RegExp(`^\\| \`${name}\` \\|`, 'gm')), name).toHaveLength(1);
    expect(page).toContain('| `PORT` | `3000` |');
    expect(page).toContain('| `GATEWAY_REQUIRE_API_KEY` | `true` |');
    expect(page).toContain('| `DATABASE_URL` | unset |');
  });
});
