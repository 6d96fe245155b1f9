/** Debian's Chromium (.ci/run installs it when missing); never a downloaded browser. */
export const CHROMIUM = '/usr/bin/chromium';
