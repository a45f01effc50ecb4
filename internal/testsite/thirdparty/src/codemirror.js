import { EditorView, basicSetup } from 'codemirror';
import { javascript } from '@codemirror/lang-javascript';
window.cm = new EditorView({ doc: 'function greet(name) {\n  return "hi";\n}\n', extensions: [basicSetup, javascript()], parent: document.getElementById('editor') });
