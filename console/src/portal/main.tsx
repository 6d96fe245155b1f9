import { render } from 'preact';
import { PortalApp } from './app';
import '../styles.css';

const root = document.getElementById('app');
if (root) render(<PortalApp />, root);
