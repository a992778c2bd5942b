// Words and formats: English and Mexican Spanish, money per currency and locale, and
// dates in the business time zone (America/Mexico_City).

export const businessZone = 'America/Mexico_City';

const es = {
  'Sign in': 'Iniciar sesión', 'Sign out': 'Cerrar sesión', 'Sign in as the development user': 'Entrar como el usuario de desarrollo',
  'Sign in with your identity provider': 'Entrar con tu proveedor de identidad',
  'Overview': 'Resumen', 'Wallets': 'Carteras', 'Transactions': 'Movimientos', 'Budgets': 'Presupuestos', 'Goals': 'Metas',
  'Debts': 'Deudas', 'Recurring': 'Recurrentes', 'Reports': 'Reportes', 'Team': 'Equipo', 'API keys': 'Claves de API',
  'Webhooks': 'Webhooks', 'Audit log': 'Bitácora', 'Profile': 'Perfil', 'Categories': 'Categorías',
  'Record': 'Registrar', 'Income': 'Ingreso', 'Expense': 'Gasto', 'Transfer': 'Transferencia', 'Amount': 'Monto',
  'Wallet': 'Cartera', 'To wallet': 'A la cartera', 'Category': 'Categoría', 'Description': 'Descripción', 'Date': 'Fecha',
  'Save': 'Guardar', 'Cancel': 'Cancelar', 'Delete': 'Eliminar', 'Edit': 'Editar', 'Undo': 'Deshacer', 'Create': 'Crear',
  'Name': 'Nombre', 'Currency': 'Moneda', 'Balance': 'Saldo', 'Initial balance': 'Saldo inicial', 'Type': 'Tipo',
  'New wallet': 'Nueva cartera', 'New budget': 'Nuevo presupuesto', 'New goal': 'Nueva meta', 'New debt': 'Nueva deuda',
  'New category': 'Nueva categoría', 'Total': 'Total', 'Search': 'Buscar', 'From': 'Desde', 'To': 'Hasta', 'All': 'Todos',
  'Previous': 'Anterior', 'Next': 'Siguiente', 'Page': 'Página', 'of': 'de', 'Nothing here yet.': 'Nada por aquí todavía.',
  'Deleted.': 'Eliminado.', 'Saved.': 'Guardado.', 'Recorded.': 'Registrado.', 'spent of': 'gastado de',
  'remaining': 'restante', 'Alert at': 'Alerta al', 'Start': 'Inicio', 'End': 'Fin', 'Period': 'Periodo',
  'Target': 'Objetivo', 'Saved': 'Ahorrado', 'Deposit': 'Depositar', 'Withdraw': 'Retirar', 'Deadline': 'Fecha límite',
  'Creditor': 'Acreedor', 'Pending': 'Pendiente', 'Paid': 'Pagado', 'Pay': 'Pagar', 'Pay now': 'Pagar ahora',
  'Next payment': 'Próximo pago', 'Skipped': 'Omitidos', 'Frequency': 'Frecuencia', 'Month': 'Mes', 'Expenses by category': 'Gastos por categoría',
  'Change against the month before': 'Cambio contra el mes anterior', 'Download CSV': 'Descargar CSV',
  'Download PDF': 'Descargar PDF', 'Members': 'Miembros', 'Role': 'Rol', 'Email': 'Correo', 'Invite': 'Invitar',
  'Remove': 'Quitar', 'Scopes': 'Permisos', 'Revoke': 'Revocar', 'Copy': 'Copiar', 'Copied.': 'Copiado.',
  'This key is shown once. Copy it now.': 'Esta clave se muestra una sola vez. Cópiala ahora.',
  'Secret': 'Secreto', 'Deliveries': 'Entregas', 'Redeliver': 'Reenviar', 'Events': 'Eventos', 'Active': 'Activo',
  'Language': 'Idioma', 'Theme': 'Tema', 'Light': 'Claro', 'Dark': 'Oscuro', 'System': 'Sistema',
  'Chat channel': 'Canal de chat', 'Get a link code': 'Obtener un código de enlace', 'Linked phone': 'Teléfono enlazado',
  'Not linked.': 'Sin enlazar.', 'Unlink': 'Desenlazar', 'Workspace': 'Espacio', 'Personal': 'Personal',
  'New team': 'Nuevo equipo', 'Live': 'En vivo', 'Offline': 'Sin conexión', 'Income this month': 'Ingresos del mes',
  'Expenses this month': 'Gastos del mes', 'When': 'Cuándo', 'Action': 'Acción', 'Entity': 'Entidad', 'Actor': 'Actor',
  'URL': 'URL', 'Status': 'Estado', 'Attempts': 'Intentos', 'Test': 'Probar', 'Menu': 'Menú', 'Loading…': 'Cargando…',
  'Skip to content': 'Saltar al contenido', 'Something went wrong.': 'Algo salió mal.', 'Goal': 'Meta',
  'Workspace total': 'Total del espacio', 'Close': 'Cerrar', 'Default': 'Predeterminada', 'Report': 'Reporte',
  'Expires': 'Vence', 'Prefix': 'Prefijo', 'Code': 'Código', 'valid for 10 minutes': 'válido por 10 minutos',
  'Correct': 'Corregir', 'Filters': 'Filtros', 'Apply': 'Aplicar',
  'No way to sign in is configured on this server.': 'Este servidor no tiene configurada ninguna forma de iniciar sesión.',
  // slice: rates
  'Exchange rates': 'Tipos de cambio', 'no exchange rate in force': 'sin tipo de cambio vigente',
  'Last known': 'Último', 'See and set exchange rates': 'Ver y fijar tipos de cambio', 'Rate': 'Tipo',
  'Source': 'Fuente', 'In force on': 'Vigentes el', 'Enter a rate': 'Fijar un tipo', 'Import the ECB\'s rates': 'Importar los del BCE',
  'Entered by hand': 'A mano', 'ECB': 'BCE', 'ECB, shipped history': 'BCE, historial incluido',
  'a decimal with a point, such as 17.25': 'un decimal con punto, como 17.25',
};

// terms are the words for the codes the API answers with: roles, periods, kinds.
const terms = {
  owner: ['Owner', 'Propietario'], admin: ['Admin', 'Administrador'], collaborator: ['Collaborator', 'Colaborador'],
  reader: ['Reader', 'Lector'], active: ['Active', 'Activo'], invited: ['Invited', 'Invitado'], pending: ['Pending', 'Pendiente'],
  succeeded: ['Delivered', 'Entregado'], failed: ['Failed', 'Fallido'],
  weekly: ['Weekly', 'Semanal'], biweekly: ['Every two weeks', 'Catorcenal'], semi_monthly: ['Twice a month', 'Quincenal'],
  monthly: ['Monthly', 'Mensual'], quarterly: ['Quarterly', 'Trimestral'], yearly: ['Yearly', 'Anual'],
  cash: ['Cash', 'Efectivo'], card: ['Card', 'Tarjeta'], bank_account: ['Bank account', 'Cuenta bancaria'],
  digital_wallet: ['Digital wallet', 'Cartera digital'], income: ['Income', 'Ingreso'], expense: ['Expense', 'Gasto'],
  transfer: ['Transfer', 'Transferencia'], goal_deposit: ['Goal deposit', 'Depósito a meta'],
  goal_withdrawal: ['Goal withdrawal', 'Retiro de meta'],
  // why a sign-in came back (/auth/callback)
  state_mismatch: ['The sign-in was started in another browser or tab. Start it again here.', 'El inicio de sesión empezó en otro navegador o pestaña. Empiézalo de nuevo aquí.'],
  expired: ['The sign-in took too long or was already used. Start it again.', 'El inicio de sesión tardó demasiado o ya se usó. Empiézalo de nuevo.'],
  refused: ['The identity provider did not sign you in.', 'El proveedor de identidad no inició tu sesión.'],
  provider_unavailable: ['The identity provider cannot be reached. Try again in a moment.', 'No se puede contactar al proveedor de identidad. Intenta de nuevo en un momento.'],
  exchange_failed: ['The identity provider refused to finish the sign-in. Start it again.', 'El proveedor de identidad no terminó el inicio de sesión. Empiézalo de nuevo.'],
  bad_token: ['The identity provider\'s answer could not be verified.', 'No se pudo verificar la respuesta del proveedor de identidad.'],
  bad_identity: ['Your account needs a verified email address to sign in.', 'Tu cuenta necesita un correo verificado para entrar.'],
};

// term names an API code in the person's language (the code itself when unknown).
export function term(code) {
  const words = terms[code];
  return words ? words[locale === 'es-MX' ? 1 : 0] : code;
}

let locale = 'en';

export function setLanguage(lang) {
  locale = lang && lang.toLowerCase().startsWith('es') ? 'es-MX' : 'en';
  document.documentElement.lang = locale === 'es-MX' ? 'es' : 'en';
}

export function language() { return locale; }

// t translates an English phrase.
export function t(text) {
  return (locale === 'es-MX' && es[text]) || text;
}

const moneyFormats = new Map();

// money formats an amount (a number or a decimal string from the API) in its currency.
export function money(amount, currency) {
  const key = locale + currency;
  let f = moneyFormats.get(key);
  if (!f) {
    try {
      f = new Intl.NumberFormat(locale, { style: 'currency', currency: currency || 'MXN' });
    } catch {
      f = new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    }
    moneyFormats.set(key, f);
  }
  return f.format(Number(amount));
}

// day formats a business date (YYYY-MM-DD) as it is: no time zone shifts it.
export function day(iso) {
  if (!iso) return '';
  const [y, m, d] = iso.slice(0, 10).split('-').map(Number);
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(Date.UTC(y, m - 1, d)));
}

// moment formats an instant in the business time zone.
export function moment(iso) {
  if (!iso) return '';
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: businessZone }).format(new Date(iso));
}

// today is the business day now, as YYYY-MM-DD.
export function today() {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone: businessZone, year: 'numeric', month: '2-digit', day: '2-digit' })
    .formatToParts(new Date());
  const get = (type) => parts.find((p) => p.type === type).value;
  return `${get('year')}-${get('month')}-${get('day')}`;
}

// monthName names a month given as YYYY-MM.
export function monthName(ym) {
  const [y, m] = ym.split('-').map(Number);
  return new Intl.DateTimeFormat(locale, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(Date.UTC(y, m - 1, 1)));
}
