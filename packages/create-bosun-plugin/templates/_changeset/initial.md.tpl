---
"{{packageName}}": minor
---

First release of {{packageName}}: a Bosun pre-step plugin that rejects a step whose input
contains one of the configured `words`, with `{ reason: 'blocked-word', word, messageId }` as the
rejection's metadata.
