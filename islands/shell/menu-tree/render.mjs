// Renders the menu island's first paint from its props (JSON on stdin) as React would hydrate
// it: { main, user } as HTML. tests/shell/test_menu_island.py compares it with the server's.
import { createElement as h } from 'react';
import { renderToString } from 'react-dom/server';
import { MainMenu, UserMenu } from './components.js';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const props = JSON.parse(input);
process.stdout.write(
  JSON.stringify({
    main: renderToString(h(MainMenu, props.main)),
    user: props.user ? renderToString(h(UserMenu, props.user)) : null,
  }),
);
