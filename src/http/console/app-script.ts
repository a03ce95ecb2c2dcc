// The console's script (GET /console/app.js): a small vanilla module. It keeps the admin key
// in sessionStorage, sends it as a Bearer header, refreshes the panels every few seconds and
// drives the operator forms. Everything shown goes in through textContent or attributes:
// no HTML is ever built from data. Charts are SVG drawn with createElementNS.
// Served as one script; its parts, in order, each hold one concern.
import { SCRIPT_CONTROLS } from './controls-panel.js';
import { SCRIPT_FREEZES } from './freeze-panel.js';
import { SCRIPT_BASICS } from './script-basics.js';
import { SCRIPT_CHARTS } from './script-charts.js';
import { SCRIPT_FORMS } from './script-forms.js';
import { SCRIPT_PANELS } from './script-panels.js';
import { SCRIPT_SEARCH } from './script-search.js';
import { SCRIPT_WIRING } from './script-wiring.js';

export const CONSOLE_SCRIPT = [
  SCRIPT_BASICS,
  SCRIPT_CHARTS,
  SCRIPT_PANELS,
  SCRIPT_FORMS,
  SCRIPT_SEARCH,
  SCRIPT_FREEZES,
  SCRIPT_CONTROLS,
  SCRIPT_WIRING,
].join('\n');
