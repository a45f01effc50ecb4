import './lib/jq-global.js';
import select2 from 'select2/dist/js/select2.full.js';
import 'select2/dist/css/select2.css';
// Under a CommonJS wrapper Select2 exports a factory to call with jQuery.
if (typeof select2 === 'function') select2(window, window.jQuery);
