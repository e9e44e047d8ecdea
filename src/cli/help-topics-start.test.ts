// help-topics.ts is evaluated by every start of the CLI (the root help lists the topics): imported here, after the
// wrapping it could do is watched, and not by the file's other tests, which import it before any test runs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Help } from '@commander-js/extra-typings';

describe('help topics at start', () => {
  it('lays out no topic until one is shown: the root help needs only their names and summaries', async () => {
    const { boxWrap } = Help.prototype;
    let wrapped = 0;
    Help.prototype.boxWrap = function (this: Help, ...args: Parameters<Help['boxWrap']>) {
      wrapped++;
      return boxWrap.apply(this, args);
    };
    try {
      const { topicText, topicsSummary } = await import('./help-topics.js');
      assert.match(topicsSummary(), /exit-codes/);
      assert.equal(wrapped, 0, 'nothing was wrapped by loading the topics and listing them');
      assert.match(topicText('environment') ?? '', /CTL_PROFILE/);
      assert.ok(wrapped > 0, "a topic's text is wrapped when it is shown");
    } finally {
      Help.prototype.boxWrap = boxWrap;
    }
  });
});
