// Writes docs/settings.md from src/config.ts: every setting, its default and what it does.
// `npm run docs:settings` after a change to the settings; tests/unit/settings-doc.test.ts fails
// while the page and config.ts disagree.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Config, SETTING_DOCS, SETTING_GROUPS, type SettingGroup } from '../src/config';

export const SETTINGS_PAGE = join(import.meta.dirname, '..', 'docs', 'settings.md');

function shownDefault(name: keyof Config): string {
  const given = SETTING_DOCS[name].shown;
  if (given) return given;
  const parsed = Config.shape[name].safeParse(undefined);
  if (!parsed.success || parsed.data === undefined) return 'unset';
  return `\`${String(parsed.data)}\``;
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

export function renderSettingsPage(): string {
  const names = Object.keys(Config.shape) as (keyof Config)[];
  const lines = [
    '# Settings',
    '',
    '<!-- Generated from src/config.ts by `npm run docs:settings`: edit SETTING_DOCS there, not this page. -->',
    '',
    'Environment variables, parsed once at start-up by every process (server, worker, tools); a bad',
    'value stops the process with a message naming it. An empty value (`PORT=`) is an error, not',
    '"unset": leave a variable out of the environment to get its default. The worker refuses to',
    'start when its settings contradict each other (a heartbeat slower than half the stale window,',
    "or a registry timeout beyond it): either would let a live worker's row be taken over while its",
    'call may still land.',
  ];
  for (const [group, title] of Object.entries(SETTING_GROUPS) as [SettingGroup, string][]) {
    lines.push('', `## ${title}`, '', '| Variable | Default | What it does |', '|---|---|---|');
    for (const name of names.filter((n) => SETTING_DOCS[n].group === group)) {
      lines.push(`| \`${name}\` | ${cell(shownDefault(name))} | ${cell(SETTING_DOCS[name].doc)} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  writeFileSync(SETTINGS_PAGE, renderSettingsPage());
  console.log(`wrote ${SETTINGS_PAGE}`);
}
