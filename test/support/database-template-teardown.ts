import { removeDatabaseTemplate } from './database-template';

export default removeDatabaseTemplate;
