import Choices from 'choices.js';
import 'choices.js/public/assets/styles/choices.css';
window.Choices = Choices;
