// Settings → Backups, for admins: the backups in the hub's backups folder,
// newest first, each with a download link; Back up now; whether backups
// are scheduled and how many are kept. Restoring one is done on the
// command line with the hub stopped, and the section says how.

import { get, post, at } from './api.js';
import { h, busy, when, replace } from './dom.js';

let box = null; // the section's body, redrawn after Back up now

// backupsSection is the section, drawn from GET /api/backups.
export function backupsSection(app, listing) {
  box = h('div', { class: 'backups-body' });
  draw(app, listing);
  return h('section', { class: 'card backups', 'aria-labelledby': 'backups-title' },
    h('h2', { id: 'backups-title', text: 'Backups' }),
    box);
}

function draw(app, listing) {
  const now = h('button', { type: 'button', class: 'primary', id: 'backup-now', text: 'Back up now' });
  now.addEventListener('click', async () => {
    const taken = await busy(now, () => app.run(() => post('/backups'), (b) => `Backup ${b.name} taken`));
    if (!taken) return;
    const next = await app.run(() => get('/backups'));
    if (next && box && box.isConnected) draw(app, next);
  });
  replace(box,
    scheduleText(listing),
    h('p', { class: 'note', id: 'backup-keep', text: keepText(listing) }),
    h('p', { class: 'note', text: 'A backup holds the whole house, users’ password hashes and saved integration settings among it: keep downloads somewhere safe.' }),
    h('div', { class: 'row buttons' }, now),
    h('div', { class: 'table-wrap', id: 'backups' }, table(listing.backups || [])),
    restoreHelp(listing));
}

// scheduleText says whether backups are taken on their own, and how often.
function scheduleText(listing) {
  const s = listing.schedule || {};
  if (s.on) return h('p', { id: 'backup-schedule', text: `Scheduled: a backup is taken ${period(s)}.` });
  return h('p', { id: 'backup-schedule' },
    'Not scheduled: backups are taken only when you press Back up now. For one a day, start the hub with ',
    h('code', { text: 'BIFROST_BACKUP_EVERY=24h' }), '.');
}

// period says a schedule's period in words: "every day", "every 6 hours".
function period(s) {
  const secs = s.every_seconds || 0;
  const units = [[86400, 'day'], [3600, 'hour'], [60, 'minute']];
  for (const [size, unit] of units) {
    if (secs >= size && secs % size === 0) {
      const n = secs / size;
      return n === 1 ? `every ${unit}` : `every ${n} ${unit}s`;
    }
  }
  return `every ${s.every}`;
}

// keepText says where backups go and how many stay, those taken now among
// them.
function keepText(listing) {
  const keep = listing.schedule ? listing.schedule.keep : 0;
  const kept = keep === 1 ? 'only the newest is kept' : `the newest ${keep} are kept`;
  return `Backups go into ${listing.dir}, and ${kept}, those taken with Back up now among them: `
    + 'older ones are removed, however they were taken. Download one to keep it for longer.';
}

function table(backups) {
  if (backups.length === 0) return h('p', { class: 'empty', text: 'No backups yet.' });
  const rows = backups.map((b) => h('tr', { 'data-backup': b.name },
    h('td', { class: 'title' }, h('code', { text: b.name })),
    h('td', { 'data-label': 'Taken' }, h('time', { datetime: b.taken, text: when(b.taken) })),
    h('td', { 'data-label': 'Size', text: size(b.size) }),
    h('td', { class: 'actions' }, h('a', {
      href: '/api' + at`/backups/${b.name}`, download: b.name, class: 'download', text: 'Download', 'aria-label': `Download ${b.name}`,
    }))));
  return h('table', { class: 'backups' },
    h('caption', { class: 'visually-hidden', text: 'Backups, newest first' }),
    h('thead', {}, h('tr', {}, ['File', 'Taken', 'Size', ''].map((t) => h('th', { scope: 'col', text: t })))),
    h('tbody', {}, rows));
}

// size is a number of bytes for people: "1.4 MB".
function size(bytes) {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ['KB', 'MB', 'GB'];
  let v = bytes / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i += 1; }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

// restoreHelp says how to restore a backup: on the command line, the hub
// stopped.
function restoreHelp(listing) {
  const command = listing.restore || 'bifrost restore --data DATA DATA/backups/NAME';
  return h('div', { class: 'restore-help' },
    h('h3', { text: 'Restoring a backup' }),
    h('p', { text: 'Restoring is done on the command line, not here. Stop the hub, restore, then start it again; NAME is the backup’s file name:' }),
    h('pre', { id: 'restore-command' }, h('code', { text: command })),
    h('p', { text: 'With Docker Compose:' }),
    h('pre', { id: 'restore-docker' }, h('code', {
      text: 'docker compose stop bifrost\ndocker compose run --rm bifrost restore /data/backups/NAME\ndocker compose start bifrost',
    })),
    h('p', { class: 'note', text: 'The restore checks the file first and changes nothing if it is not a sound Bifrost backup. '
      + 'It keeps the database it replaces beside it, as bifrost.db.before-restore-<time>, and brings a backup from an older release up to date.' }));
}
