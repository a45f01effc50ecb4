// jQuery on window before jQuery UI's UMD wrapper looks for it (ES imports
// run in order, so this module's body runs first).
import $ from 'jquery';
window.$ = window.jQuery = $;
