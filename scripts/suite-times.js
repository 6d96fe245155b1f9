// Prints the slowest files of a vitest run from its JSON report, with the sum of all files' times:
//   npx vitest run --reporter=default --reporter=json --outputFile.json=/tmp/vitest.json
//   node scripts/suite-times.js /tmp/vitest.json [count]
// A file's time runs from its first test's start to its last test's end (vitest's startTime and
// endTime): its tests and hooks, not the loading of its modules. CONTRIBUTING.md, "How long the suite takes".
import { readFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';

const [file, count = '15'] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node scripts/suite-times.js <vitest JSON report> [count]\n');
  process.exit(2);
}
const report = JSON.parse(readFileSync(file, 'utf8'));
const rows = report.testResults
  .map((result) => ({
    name: path.relative(process.cwd(), result.name),
    seconds: (result.endTime - result.startTime) / 1000,
    status: result.status,
  }))
  .sort((a, b) => b.seconds - a.seconds);
const total = rows.reduce((sum, row) => sum + row.seconds, 0);
const first = Math.min(...report.testResults.map((result) => result.startTime));
const last = Math.max(...report.testResults.map((result) => result.endTime));
process.stdout.write(
  `${rows.length} files, ${report.numTotalTests} tests (${report.numFailedTests} failed); ` +
    `files' times add up to ${total.toFixed(0)} s; first test start to last test end ${((last - first) / 1000).toFixed(0)} s\n`,
);
for (const row of rows.slice(0, Number(count))) {
  process.stdout.write(
    `${row.seconds.toFixed(1).padStart(7)} s  ${row.name}${row.status === 'passed' ? '' : `  (${row.status})`}\n`,
  );
}
