import './styles/tokens.css';
import './styles/base.css';
import './styles/components.css';
import './styles/shell.css';
import './styles/shared.css';
import { render } from 'preact';
import { App } from './app';
import { checkSession } from './state/session';

render(<App />, document.getElementById('app')!);
void checkSession();
