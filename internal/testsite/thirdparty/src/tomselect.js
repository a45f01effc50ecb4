import TomSelect from 'tom-select/dist/js/tom-select.complete.js';
import 'tom-select/dist/css/tom-select.default.css';
window.TomSelect = TomSelect;
