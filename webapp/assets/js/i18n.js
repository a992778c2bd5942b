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
  'Next payment': 'Próximo pago', 'Frequency': 'Frecuencia', 'Month': 'Mes', 'Expenses by category': 'Gastos por categoría',
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
};

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
