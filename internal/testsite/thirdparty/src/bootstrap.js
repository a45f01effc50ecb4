import * as bootstrap from 'bootstrap/dist/js/bootstrap.bundle.js';
import 'bootstrap/dist/css/bootstrap.css';
window.bootstrap = bootstrap;
