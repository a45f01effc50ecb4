import Quill from 'quill';
import 'quill/dist/quill.snow.css';
window.Quill = Quill;
