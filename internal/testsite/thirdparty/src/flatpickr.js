import flatpickr from 'flatpickr';
import 'flatpickr/dist/flatpickr.css';
window.flatpickr = flatpickr;
